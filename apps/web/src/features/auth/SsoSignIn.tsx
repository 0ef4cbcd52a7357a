import { Alert, Button, Stack, TextInput } from '@mantine/core';
import { SSO_STRINGS as S } from '@parley/contracts';
import { type FormEvent, useState } from 'react';
import { authApi } from '../../lib/api/auth';
import { errorText } from '../../lib/http';

/** The words for a refused single sign-on, by the `?sso_error=` code the server sends the browser back with. */
export const SSO_ERROR_WORDS: Record<string, string> = {
  failed: S.signInFailed,
  expired: S.expired,
  noemail: S.noEmail,
  deactivated: S.deactivated,
};

/**
 * "Sign in with SSO": the organisation's sign-in name, looked up, then the browser goes to the identity
 * provider. Remembers the name in this browser so the next time it is filled in.
 */
export function SsoSignIn({ onBack }: { onBack: () => void }) {
  const [name, setName] = useState(() => {
    try {
      return localStorage.getItem('parley.ssoName') ?? '';
    } catch {
      return '';
    }
  });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    if (!name.trim()) return setError(S.unknownSlug);
    setBusy(true);
    try {
      const r = await authApi.ssoLookup(name.trim());
      try {
        localStorage.setItem('parley.ssoName', name.trim().toLowerCase());
      } catch {
        // Storage may be off: the name is simply not remembered.
      }
      window.location.assign(r.start);
    } catch (err) {
      setError(errorText(err, S.unknownSlug));
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} noValidate data-testid="sso-sign-in">
      <Stack>
        {error && (
          <Alert color="red" variant="light" role="alert">
            {error}
          </Alert>
        )}
        <TextInput
          label={S.ssoCompany}
          name="sso-name"
          autoFocus
          autoComplete="organization"
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
        />
        <Button type="submit" loading={busy} fullWidth>
          {S.ssoContinue}
        </Button>
        <Button variant="subtle" onClick={onBack}>
          {S.backToPassword}
        </Button>
      </Stack>
    </form>
  );
}
