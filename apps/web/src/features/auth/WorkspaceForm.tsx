import { Alert, Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { CreateWorkspaceInput } from '@parley/contracts';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { authApi } from '../../lib/api/auth';
import { errorText } from '../../lib/http';
import { useRefreshSession } from '../../lib/session';
import { AuthLayout, AuthLink } from '../../ui/AuthLayout';
import { t } from './strings';

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
  const refresh = useRefreshSession();
  const create = useMutation({
    mutationFn: (input: CreateWorkspaceInput) =>
      mode === 'firstRun' ? authApi.createWorkspace(input) : authApi.signUp(input),
    onSuccess: () => refresh(),
    onError: (err) => setFailure(errorText(err, t.failed)),
  });

  const field = (name: Field) => ({
    name,
    value: form[name],
    error: errors[name],
    onChange: (e: { currentTarget: { value: string } }) => setForm({ ...form, [name]: e.currentTarget.value }),
  });

  function submit(e: FormEvent) {
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
    create.mutate(parsed.data);
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
          <Button type="submit" loading={create.isPending} fullWidth>
            {mode === 'firstRun' ? t.createButton : t.signUpButton}
          </Button>
        </Stack>
      </form>
    </AuthLayout>
  );
}
