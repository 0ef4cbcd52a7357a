import { Alert, Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { NewPassword, PasswordResetRequest } from '@parley/contracts';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useSearchParams } from 'react-router';
import { authApi } from '../../lib/api/auth';
import { errorText } from '../../lib/http';
import { AuthLayout, AuthLink } from '../../ui/AuthLayout';
import { t } from './strings';

/** `/password_reset`: ask for a link; with `?token=` from the e-mail, choose the new password. */
export function PasswordResetPage() {
  const [params] = useSearchParams();
  const token = params.get('token');
  return token ? <ChooseNewPassword token={token} /> : <RequestLink />;
}

function useSubmit() {
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const send = useMutation({
    mutationFn: (fn: () => Promise<{ description?: string }>) => fn(),
    onMutate: () => setError(null),
    onSuccess: (r) => setDone(r.description ?? 'Done.'),
    onError: (err) => setError(errorText(err, t.failed)),
  });
  const run = (fn: () => Promise<{ description?: string }>) => send.mutate(fn);
  return { busy: send.isPending, error, done, run, setError };
}

/** What the server answered: its confirmation, or its refusal in its own words. */
function Outcome({ done, error }: { done: string | null; error: string | null }) {
  return (
    <>
      {done && (
        <Alert color="green" variant="light" role="status">
          {done}
        </Alert>
      )}
      {error && (
        <Alert color="red" variant="light" role="alert">
          {error}
        </Alert>
      )}
    </>
  );
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
          <Outcome done={s.done} error={s.error} />
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
          <Outcome done={s.done} error={s.error} />
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
