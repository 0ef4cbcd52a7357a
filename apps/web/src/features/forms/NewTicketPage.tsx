import { Alert, Button, Center, Loader, Paper, Select, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { FORM_STRINGS, type FormField } from '@parley/contracts';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useParams } from 'react-router';
import { errorText } from '../../lib/http';
import { formKeys } from '../../lib/queryKeys';
import { useWrite } from '../../lib/useWrite';
import { formsApi } from './api';

/** `/new_ticket/{token}`: a form's public page; sending it opens a ticket for the team. */
export function NewTicketPage() {
  const token = useParams().token ?? '';
  const form = useQuery({ queryKey: formKeys.public(token), queryFn: () => formsApi.publicForm(token), retry: false });
  const [values, setValues] = useState<Record<string, string>>({});
  const [website, setWebsite] = useState('');
  const [sent, setSent] = useState(false);
  const { run, busy, error } = useWrite();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (await run(() => formsApi.send(token, values, website))) setSent(true);
  };

  return (
    <Center mih="100dvh" p="md" bg="var(--mantine-color-body)">
      <Paper withBorder radius="md" p="xl" w="100%" maw={520} data-testid="new-ticket-page">
        {form.isPending && <Loader aria-label="Loading" />}
        {form.isError && (
          <Stack gap="xs">
            <Title order={1} size="h3">
              {FORM_STRINGS.notFound}
            </Title>
            <Text c="dimmed">{errorText(form.error)}</Text>
          </Stack>
        )}
        {form.data && sent && (
          <Stack gap="xs" role="status">
            <Title order={1} size="h3">
              {form.data.company}
            </Title>
            <Text data-testid="new-ticket-sent">{FORM_STRINGS.sent}</Text>
          </Stack>
        )}
        {form.data && !sent && (
          <form onSubmit={(e) => void submit(e)} noValidate>
            <Stack gap="sm">
              <Text c="dimmed" size="sm">
                {form.data.company}
              </Text>
              <Title order={1} size="h3">
                {form.data.name}
              </Title>
              {form.data.fields.map((f) => (
                <Field
                  key={f.key}
                  f={f}
                  value={values[f.key] ?? ''}
                  onChange={(v) => setValues((x) => ({ ...x, [f.key]: v }))}
                />
              ))}
              {/* A field people never see: only bots fill it in. */}
              <input
                type="text"
                name="website"
                tabIndex={-1}
                autoComplete="off"
                aria-hidden="true"
                value={website}
                onChange={(e) => setWebsite(e.currentTarget.value)}
                style={{ position: 'absolute', left: '-10000px', width: 1, height: 1, overflow: 'hidden' }}
              />
              {error && (
                <Alert color="red" role="alert" data-testid="new-ticket-error">
                  {error}
                </Alert>
              )}
              <Button type="submit" loading={busy} data-testid="new-ticket-send">
                {FORM_STRINGS.send}
              </Button>
            </Stack>
          </form>
        )}
      </Paper>
    </Center>
  );
}

function Field({ f, value, onChange }: { f: FormField; value: string; onChange(v: string): void }) {
  const common = { label: f.label, required: f.required, value, name: f.key };
  switch (f.type) {
    case 'textarea':
      return (
        <Textarea {...common} autosize minRows={4} maxRows={12} onChange={(e) => onChange(e.currentTarget.value)} />
      );
    case 'select':
      return <Select {...common} data={f.options} onChange={(v) => onChange(v ?? '')} />;
    case 'email':
      return (
        <TextInput {...common} type="email" autoComplete="email" onChange={(e) => onChange(e.currentTarget.value)} />
      );
    case 'phone':
      return <TextInput {...common} type="tel" autoComplete="tel" onChange={(e) => onChange(e.currentTarget.value)} />;
    case 'date':
      return <TextInput {...common} type="date" onChange={(e) => onChange(e.currentTarget.value)} />;
    default:
      return <TextInput {...common} onChange={(e) => onChange(e.currentTarget.value)} />;
  }
}
