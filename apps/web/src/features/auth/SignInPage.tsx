import { Alert, Button, PasswordInput, SegmentedControl, Stack, TextInput } from '@mantine/core';
import { type SignInInput, SSO_STRINGS, TFA_REQUIRED } from '@parley/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { authApi } from '../../lib/api/auth';
import { errorText } from '../../lib/http';
import { useRefreshSession, useSetupState } from '../../lib/session';
import { AuthLayout, AuthLink } from '../../ui/AuthLayout';
import { SSO_ERROR_WORDS, SsoSignIn } from './SsoSignIn';
import { t } from './strings';

type SignInType = NonNullable<SignInInput['type']>;
/** Where the browser remembers the last choice of Agent or Admin, so an admin does not pick it every time. */
const TYPE_KEY = 'parley.signInType';
const rememberedType = (): SignInType => {
  try {
    return localStorage.getItem(TYPE_KEY) === 'admin' ? 'admin' : 'agent';
  } catch {
    return 'agent';
  }
};

/**
 * AUTH-01: the login form at `/`. AUTH-02, AUTH-30 (design): Agent or Admin is chosen with a switch above
 * the fields (Agent unless Admin was chosen last time in this browser) and sent as `type`; the server
 * refuses Admin for a user who is not an admin.
 */
export function SignInPage() {
  const [type, setType] = useState<SignInType>(rememberedType);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [tfa, setTfa] = useState('');
  const [needTfa, setNeedTfa] = useState(false);
  const [errors, setErrors] = useState<{ username?: string; password?: string }>({});
  // A single sign-on the server refused comes back as `/?sso_error=<code>`: said once, then the URL is cleaned.
  const [failure, setFailure] = useState<string | null>(() => {
    const code = new URLSearchParams(window.location.search).get('sso_error');
    if (!code) return null;
    window.history.replaceState(null, '', window.location.pathname);
    return SSO_ERROR_WORDS[code] ?? SSO_ERROR_WORDS.failed!;
  });
  const [sso, setSso] = useState(false);
  // "Sign in with SSO" only when some account has it on: never shown where it is not set up.
  const ssoOffered = useQuery({
    queryKey: ['sso', 'offered'],
    queryFn: authApi.ssoOffered,
    staleTime: 5 * 60_000,
    retry: false,
  }).data;
  const refresh = useRefreshSession();
  const signIn = useMutation({
    mutationFn: (input: SignInInput) => authApi.signIn(input),
    onSuccess: async (r) => {
      if (r.description === TFA_REQUIRED) return setNeedTfa(true);
      await refresh();
    },
    onError: (err) => {
      const description = errorText(err, t.failed);
      if (description === TFA_REQUIRED) setNeedTfa(true);
      else setFailure(description || t.failed);
    },
  });
  // SIGNUP_ENABLED=false: no link to a sign-up the server refuses.
  const signupOn = useSetupState().data?.signup !== false;

  function submit(e: FormEvent) {
    e.preventDefault();
    const next = {
      username: username.trim() ? undefined : t.usernameRequired,
      password: password ? undefined : t.passwordRequired,
    };
    setErrors(next);
    setFailure(null);
    if (next.username || next.password) return;
    try {
      localStorage.setItem(TYPE_KEY, type);
    } catch {
      // Storage may be off (private mode); the choice is then simply not remembered.
    }
    signIn.mutate({ client: username.trim(), password, type, tfa: needTfa ? tfa : undefined });
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
      {sso ? (
        <SsoSignIn onBack={() => setSso(false)} />
      ) : (
        <form onSubmit={submit} noValidate>
          <Stack>
            {failure && (
              <Alert color="red" variant="light" role="alert">
                {failure}
              </Alert>
            )}
            <SegmentedControl
              aria-label={t.signInAs}
              fullWidth
              value={type}
              onChange={(v) => setType(v === 'admin' ? 'admin' : 'agent')}
              data={[
                { value: 'agent', label: t.agent },
                { value: 'admin', label: t.admin },
              ]}
            />
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
            <Button type="submit" loading={signIn.isPending} fullWidth>
              {t.signIn}
            </Button>
            {ssoOffered && (
              <Button variant="default" fullWidth onClick={() => setSso(true)} data-testid="sso-offer">
                {SSO_STRINGS.signInWithSso}
              </Button>
            )}
          </Stack>
        </form>
      )}
    </AuthLayout>
  );
}
