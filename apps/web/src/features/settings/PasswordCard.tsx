import { Alert, Button, Card, PasswordInput, Stack, Title } from '@mantine/core';
import { NewPassword } from '@parley/contracts';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { errorText } from '../../lib/http';
import { settingsApi } from './api';
import { t } from './strings';

export function PasswordCard() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const change = useMutation({
    mutationFn: (v: { current: string; next: string }) => settingsApi.changePassword(v.current, v.next),
    onSuccess: () => {
      setDone(true);
      setCurrent('');
      setNext('');
    },
    onError: (err) => setError(errorText(err)),
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    setDone(false);
    const parsed = NewPassword.safeParse(next);
    if (!current) return setError('Password is required.');
    if (!parsed.success) return setError(parsed.error.issues[0]?.message ?? 'Invalid password.');
    setError(null);
    change.mutate({ current, next });
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
          <Button type="submit" loading={change.isPending} w="fit-content">
            {t.changePassword}
          </Button>
        </Stack>
      </form>
    </Card>
  );
}
