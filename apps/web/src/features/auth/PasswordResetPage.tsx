import { Alert, Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { NewPassword, PasswordResetRequest } from '@parley/contracts';
import { type FormEvent, useState } from 'react';
import { useSearchParams } from 'react-router';
import { HttpError } from '../../lib/http';
import { AuthLayout, AuthLink } from '../../ui/AuthLayout';
import { authApi } from './api';
import { t } from './strings';

/** `/password_reset`: ask for a link; with `?token=` from the e-mail, choose the new password. */
export function PasswordResetPage() {
  const [params] = useSearchParams();
  const token = params.get('token');
  return token ? <ChooseNewPassword token={token} /> : <RequestLink />;
}

function useSubmit() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const run = async (fn: () => Promise<{ description?: string }>) => {
    setBusy(true);
    setError(null);
    try {
      setDone((await fn()).description ?? 'Done.');
    } catch (err) {
      setError(err instanceof HttpError ? err.description : t.failed);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, done, run, setError };
}

function RequestLink() {
  const [email, setEmail] = useState('');
  const [fieldError, setFieldError] = useState<string>();
  const s = useSubmit();
  function submit(e: FormEvent) {
    e.preventDefault();
    const parsed = PasswordResetRequest.safeParse({ email });
    setFieldError(parsed.success ? undefined : parsed.error.issues[0]?.message);
    if (parsed.success) void s.run(() => authApi.requestReset(parsed.data.email));
  }
  return (
    <AuthLayout title={t.resetTitle} subtitle={t.resetSubtitle} footer={<AuthLink to="/" text={t.backToSignIn} />}>
      <form onSubmit={submit} noValidate>
        <Stack>
          {s.done && (
            <Alert color="green" variant="light" role="status">
              {s.done}
            </Alert>
          )}
          {s.error && (
            <Alert color="red" variant="light" role="alert">
              {s.error}
            </Alert>
          )}
          <TextInput
            label={t.email}
            type="email"
            name="email"
            autoComplete="email"
            autoFocus
            value={email}
            error={fieldError}
            onChange={(e) => setEmail(e.currentTarget.value)}
          />
          <Button type="submit" loading={s.busy} fullWidth>
            {t.resetSend}
          </Button>
        </Stack>
      </form>
    </AuthLayout>
  );
}

function ChooseNewPassword({ token }: { token: string }) {
  const [password, setPassword] = useState('');
  const [fieldError, setFieldError] = useState<string>();
  const s = useSubmit();
  function submit(e: FormEvent) {
    e.preventDefault();
    const parsed = NewPassword.safeParse(password);
    setFieldError(parsed.success ? undefined : parsed.error.issues[0]?.message);
    if (parsed.success) void s.run(() => authApi.confirmReset(token, password));
  }
  return (
    <AuthLayout
      title={t.resetNewTitle}
      subtitle={t.resetNewSubtitle}
      footer={<AuthLink to="/" text={t.backToSignIn} />}
    >
      <form onSubmit={submit} noValidate>
        <Stack>
          {s.done && (
            <Alert color="green" variant="light" role="status">
              {s.done}
            </Alert>
          )}
          {s.error && (
            <Alert color="red" variant="light" role="alert">
              {s.error}
            </Alert>
          )}
          {!s.done && (
            <>
              <PasswordInput
                label={t.newPassword}
                name="password"
                autoComplete="new-password"
                autoFocus
                value={password}
                error={fieldError}
                onChange={(e) => setPassword(e.currentTarget.value)}
              />
              <Button type="submit" loading={s.busy} fullWidth>
                {t.resetNewButton}
              </Button>
            </>
          )}
        </Stack>
      </form>
    </AuthLayout>
  );
}
