import { Alert, Button, Card, PasswordInput, Stack, Title } from '@mantine/core';
import { NewPassword } from '@parley/contracts';
import { type FormEvent, useState } from 'react';
import { HttpError } from '../../lib/http';
import { settingsApi } from './api';
import { t } from './strings';

export function PasswordCard() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setDone(false);
    const parsed = NewPassword.safeParse(next);
    if (!current) return setError('Password is required.');
    if (!parsed.success) return setError(parsed.error.issues[0]?.message ?? 'Invalid password.');
    setBusy(true);
    setError(null);
    try {
      await settingsApi.changePassword(current, next);
      setDone(true);
      setCurrent('');
      setNext('');
    } catch (err) {
      setError(err instanceof HttpError ? err.description : 'Failed');
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card withBorder radius="md" padding="lg">
      <form onSubmit={submit} noValidate>
        <Stack>
          <Title order={3} size="h4">
            {t.changePassword}
          </Title>
          {error && (
            <Alert color="red" variant="light" role="alert">
              {error}
            </Alert>
          )}
          {done && (
            <Alert color="green" variant="light" role="status">
              {t.passwordChanged}
            </Alert>
          )}
          <PasswordInput
            label={t.currentPassword}
            autoComplete="current-password"
            value={current}
            onChange={(e) => setCurrent(e.currentTarget.value)}
          />
          <PasswordInput
            label={t.newPassword}
            autoComplete="new-password"
            value={next}
            onChange={(e) => setNext(e.currentTarget.value)}
          />
          <Button type="submit" loading={busy} w="fit-content">
            {t.changePassword}
          </Button>
        </Stack>
      </form>
    </Card>
  );
}
