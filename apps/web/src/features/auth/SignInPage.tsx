import { Alert, Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { TFA_REQUIRED } from '@parley/contracts';
import { type FormEvent, useState } from 'react';
import { HttpError } from '../../lib/http';
import { AuthLayout, AuthLink } from '../../ui/AuthLayout';
import { authApi } from './api';
import { t } from './strings';
import { useRefreshSession, useSetupState } from './useSession';

/** AUTH-01: the login form at `/`. */
export function SignInPage() {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [tfa, setTfa] = useState('');
  const [needTfa, setNeedTfa] = useState(false);
  const [errors, setErrors] = useState<{ username?: string; password?: string }>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const refresh = useRefreshSession();
  // SIGNUP_ENABLED=false: no link to a sign-up the server refuses.
  const signupOn = useSetupState().data?.signup !== false;

  async function submit(e: FormEvent) {
    e.preventDefault();
    const next = {
      username: username.trim() ? undefined : t.usernameRequired,
      password: password ? undefined : t.passwordRequired,
    };
    setErrors(next);
    setFailure(null);
    if (next.username || next.password) return;
    setBusy(true);
    try {
      const r = await authApi.signIn({ client: username.trim(), password, tfa: needTfa ? tfa : undefined });
      if (r.description === TFA_REQUIRED) {
        setNeedTfa(true);
        return;
      }
      await refresh();
    } catch (err) {
      const description = err instanceof HttpError ? err.description : t.failed;
      if (description === TFA_REQUIRED) setNeedTfa(true);
      else setFailure(description || t.failed);
    } finally {
      setBusy(false);
    }
  }

  return (
    <AuthLayout
      title={t.signInTitle}
      subtitle={t.signInSubtitle}
      footer={
        <>
          <AuthLink to="/password_reset" text={t.forgot} />
          {signupOn && <AuthLink to="/signup" text={t.noAccount} />}
        </>
      }
    >
      <form onSubmit={submit} noValidate>
        <Stack>
          {failure && (
            <Alert color="red" variant="light" role="alert">
              {failure}
            </Alert>
          )}
          <TextInput
            label={t.username}
            name="username"
            autoComplete="username"
            autoFocus
            value={username}
            onChange={(e) => setUsername(e.currentTarget.value)}
            error={errors.username}
          />
          <PasswordInput
            label={t.password}
            name="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            error={errors.password}
          />
          {needTfa && (
            <TextInput
              label={t.twoFactor}
              description={t.twoFactorHint}
              autoFocus
              name="tfa"
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={11}
              value={tfa}
              onChange={(e) => setTfa(e.currentTarget.value)}
            />
          )}
          <Button type="submit" loading={busy} fullWidth>
            {t.signIn}
          </Button>
        </Stack>
      </form>
    </AuthLayout>
  );
}
