import { Checkbox, SimpleGrid, Stack, Switch, TextInput } from '@mantine/core';
import { INTEGRATION_STRINGS as I, WEBHOOK_EVENT_NAMES, WEBHOOK_EVENTS, type WebhookEvent } from '@parley/contracts';
import { useState } from 'react';
import { useWrite } from '../../lib/useWrite';
import { FormActions } from '../../ui/ModalFormCard';
import { integrationsApi } from './api';

export interface WebhookDraft {
  id?: number;
  url: string;
  events: WebhookEvent[];
  active: boolean;
}

export const blankWebhook = (): WebhookDraft => ({ url: '', events: ['ticket.created'], active: true });

/**
 * Add or change a webhook: its URL, the events it hears, and whether it is on. The server checks the URL
 * (https, not a private address) and says what is wrong under the form; nothing is saved then. A new webhook's
 * signing secret goes to `onSecret`, to be shown once.
 */
export function WebhookForm({
  draft,
  onClose,
  onSaved,
  onSecret,
}: {
  draft: WebhookDraft;
  onClose(): void;
  onSaved(): void;
  onSecret(secret: string): void;
}) {
  const [d, setD] = useState(draft);
  const { run, busy, error, setError } = useWrite();
  const save = async () => {
    if (d.events.length === 0) return setError(I.pickEvents);
    const body = { url: d.url.trim(), events: d.events, active: d.active };
    let secret = '';
    const ok = await run(async () => {
      if (d.id) await integrationsApi.updateWebhook(d.id, body);
      else secret = (await integrationsApi.createWebhook(body)).secret;
    });
    if (!ok) return;
    if (secret) onSecret(secret);
    onSaved();
  };
  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
      data-testid="webhook-form"
    >
      <Stack>
        <TextInput
          label={I.url}
          placeholder="https://example.com/parley"
          value={d.url}
          onChange={(e) => setD({ ...d, url: e.currentTarget.value })}
          data-autofocus
          data-testid="webhook-url"
        />
        <Checkbox.Group label={I.events} value={d.events} onChange={(v) => setD({ ...d, events: v as WebhookEvent[] })}>
          <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="xs" mt={6}>
            {WEBHOOK_EVENT_NAMES.map((e) => (
              <Checkbox key={e} value={e} label={WEBHOOK_EVENTS[e]} data-testid={`webhook-event-${e}`} />
            ))}
          </SimpleGrid>
        </Checkbox.Group>
        <Switch label={I.active} checked={d.active} onChange={(e) => setD({ ...d, active: e.currentTarget.checked })} />
        <FormActions
          error={error}
          testId="webhook"
          cancelLabel={I.cancel}
          saveLabel={I.save}
          saving={busy}
          onCancel={onClose}
          onSave={() => void save()}
        />
      </Stack>
    </form>
  );
}
