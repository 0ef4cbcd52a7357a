import { Alert, Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { CreateWorkspaceInput } from '@parley/contracts';
import { type FormEvent, useState } from 'react';
import { HttpError } from '../../lib/http';
import { AuthLayout, AuthLink } from '../../ui/AuthLayout';
import { authApi } from './api';
import { t } from './strings';
import { useRefreshSession } from './useSession';

type Field = keyof CreateWorkspaceInput;

/**
 * Company, name, username, e-mail and password: the first-run form (while the server has no workspace)
 * and the sign-up form (a new trial account) are the same form posting to different calls.
 */
export function WorkspaceForm({ mode }: { mode: 'firstRun' | 'signUp' }) {
  const [form, setForm] = useState<Record<Field, string>>({
    company: '',
    name: '',
    username: '',
    email: '',
    password: '',
  });
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const refresh = useRefreshSession();

  const field = (name: Field) => ({
    name,
    value: form[name],
    error: errors[name],
    onChange: (e: { currentTarget: { value: string } }) => setForm({ ...form, [name]: e.currentTarget.value }),
  });

  async function submit(e: FormEvent) {
    e.preventDefault();
    setFailure(null);
    // The same contract the server validates with, so both say the same thing.
    const parsed = CreateWorkspaceInput.safeParse(form);
    if (!parsed.success) {
      const next: Partial<Record<Field, string>> = {};
      for (const issue of parsed.error.issues) next[issue.path[0] as Field] ??= issue.message;
      setErrors(next);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      await (mode === 'firstRun' ? authApi.createWorkspace(parsed.data) : authApi.signUp(parsed.data));
      await refresh();
    } catch (err) {
      setFailure(err instanceof HttpError ? err.description : t.failed);
    } finally {
      setBusy(false);
    }
  }

  return (
    <AuthLayout
      title={mode === 'firstRun' ? t.createTitle : t.signUpTitle}
      subtitle={mode === 'firstRun' ? t.createSubtitle : t.signUpSubtitle}
      footer={mode === 'signUp' ? <AuthLink to="/" text={t.haveAccount} /> : undefined}
    >
      <form onSubmit={submit} noValidate>
        <Stack>
          {failure && (
            <Alert color="red" variant="light" role="alert">
              {failure}
            </Alert>
          )}
          <TextInput label={t.company} autoFocus autoComplete="organization" {...field('company')} />
          <TextInput label={t.yourName} autoComplete="name" {...field('name')} />
          <TextInput label={t.username} autoComplete="username" {...field('username')} />
          <TextInput label={t.email} type="email" autoComplete="email" {...field('email')} />
          <PasswordInput label={t.password} autoComplete="new-password" {...field('password')} />
          <Button type="submit" loading={busy} fullWidth>
            {mode === 'firstRun' ? t.createButton : t.signUpButton}
          </Button>
        </Stack>
      </form>
    </AuthLayout>
  );
}
