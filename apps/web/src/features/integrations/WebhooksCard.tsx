import { Badge, Button, Group, Paper, Stack, Text } from '@mantine/core';
import { INTEGRATION_STRINGS as I, WEBHOOK_EVENTS, type WebhookDelivery, type WebhookItem } from '@parley/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { formatDateTime } from '../../lib/dates';
import { integrationKeys } from '../../lib/queryKeys';
import { useWrite } from '../../lib/useWrite';
import { ConfirmDelete, EntryActions, ModalFormCard } from '../../ui/ModalFormCard';
import { toastWrite } from '../../ui/toast';
import { integrationsApi } from './api';
import { ShownOnce } from './ShownOnce';
import { blankWebhook, type WebhookDraft, WebhookForm } from './WebhookForm';

/** A delivery's state in colour: the log is read while deliveries are retried, so it refreshes this often. */
const STATE_COLOR = { pending: 'yellow', delivered: 'green', failed: 'red' } as const;
const REFRESH_MS = 5_000;
/** The red of a receiver's error, dark enough on white and light enough on the dark card (AA). */
const ERROR_TEXT = 'light-dark(var(--mantine-color-red-9), var(--mantine-color-red-4))';

function StateBadge({ state }: { state: WebhookDelivery['state'] }) {
  return (
    <Badge size="sm" variant="dot" color={STATE_COLOR[state]}>
      {I.states[state]}
    </Badge>
  );
}

/** A webhook's delivery log, newest first: event, state, HTTP status, attempts, when, error, and Redeliver. */
function Deliveries({ webhookId }: { webhookId: number }) {
  const key = integrationKeys.deliveries(webhookId);
  const q = useQuery({
    queryKey: key,
    queryFn: () => integrationsApi.deliveries(webhookId),
    refetchInterval: REFRESH_MS,
  });
  const write = useWrite({ invalidate: key });
  if (q.data?.length === 0)
    return (
      <Text size="sm" c="dimmed">
        {I.noDeliveries}
      </Text>
    );
  return (
    <Stack gap={6} data-testid="webhook-deliveries">
      {write.error && (
        <Text size="sm" c={ERROR_TEXT}>
          {write.error}
        </Text>
      )}
      {q.data?.map((d) => (
        <Group key={d.id} justify="space-between" wrap="nowrap" align="flex-start" data-testid="webhook-delivery">
          <Stack gap={2} style={{ minWidth: 0 }}>
            <Group gap="xs">
              <StateBadge state={d.state} />
              <Text size="sm" fw={500}>
                {WEBHOOK_EVENTS[d.event as keyof typeof WEBHOOK_EVENTS] ?? d.event}
              </Text>
            </Group>
            <Text size="xs" c="dimmed">
              {I.when} {formatDateTime(d.lastAttemptAt ?? d.createdAt)} · {I.status} {d.statusCode ?? '-'} · {I.attempt}{' '}
              {d.attempts}
            </Text>
            {d.error && (
              <Text size="xs" c={ERROR_TEXT} style={{ overflowWrap: 'anywhere' }}>
                {d.error}
              </Text>
            )}
          </Stack>
          <Button
            size="compact-xs"
            variant="light"
            onClick={() => void write.run(() => integrationsApi.redeliver(d.id))}
            disabled={write.busy}
            style={{ flexShrink: 0 }}
            data-testid="webhook-redeliver"
          >
            {I.redeliver}
          </Button>
        </Group>
      ))}
    </Stack>
  );
}

/** One webhook: its URL, events and state, Edit and Remove, and its deliveries shown on demand. */
function WebhookRow({ w, onEdit, onRemove }: { w: WebhookItem; onEdit(): void; onRemove(): void }) {
  const [open, setOpen] = useState(false);
  return (
    <Paper withBorder p="sm" radius="sm" data-testid="webhook-row">
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Stack gap={4} style={{ minWidth: 0 }}>
            <Text fw={600} size="sm" style={{ overflowWrap: 'anywhere' }}>
              {w.url}
            </Text>
            <Group gap={4}>
              {!w.active && (
                <Badge size="sm" color="gray">
                  {I.inactive}
                </Badge>
              )}
              {w.lastState && <StateBadge state={w.lastState} />}
              {w.events.map((e) => (
                <Badge key={e} size="sm" variant="outline" color="gray">
                  {WEBHOOK_EVENTS[e]}
                </Badge>
              ))}
            </Group>
          </Stack>
          <EntryActions name={w.url} editLabel={I.edit} deleteLabel={I.remove} onEdit={onEdit} onDelete={onRemove} />
        </Group>
        <Group>
          <Button
            size="compact-xs"
            variant="default"
            onClick={() => setOpen(!open)}
            aria-expanded={open}
            data-testid="webhook-deliveries-toggle"
          >
            {I.deliveries}
          </Button>
        </Group>
        {open && <Deliveries webhookId={w.id} />}
      </Stack>
    </Paper>
  );
}

/**
 * Settings -> API and webhooks (admins): the account's webhooks. A new one's signing secret is shown once;
 * each has its delivery log with Redeliver.
 */
export function WebhooksCard() {
  const qc = useQueryClient();
  const list = useQuery({
    queryKey: integrationKeys.webhooks,
    queryFn: integrationsApi.webhooks,
    refetchInterval: REFRESH_MS,
  });
  const [secret, setSecret] = useState<string | null>(null);
  const [removing, setRemoving] = useState<WebhookItem | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: integrationKeys.webhooks });
  const remove = async (w: WebhookItem) => {
    setRemoving(null);
    if (await toastWrite(() => integrationsApi.removeWebhook(w.id), I.removed)) await refresh();
  };
  return (
    <ModalFormCard<WebhookDraft>
      title={I.webhooksTitle}
      hint={I.webhooksHint}
      testId="webhooks-card"
      addLabel={I.addWebhook}
      addTestId="webhook-new"
      editTitle={I.editWebhook}
      blank={blankWebhook}
      form={(draft, done) => <WebhookForm draft={draft} onSecret={setSecret} {...done} />}
      onSaved={() => void refresh()}
    >
      {(edit) => (
        <Stack gap="xs">
          {secret && (
            <ShownOnce
              intro={I.secretShownOnce}
              label={I.secretLabel}
              value={secret}
              testId="webhook-secret"
              onDone={() => setSecret(null)}
            />
          )}
          {list.data?.length === 0 && (
            <Text size="sm" c="dimmed">
              {I.noWebhooks}
            </Text>
          )}
          {list.data?.map((w) => (
            <WebhookRow
              key={w.id}
              w={w}
              onEdit={() => edit({ id: w.id, url: w.url, events: w.events, active: w.active })}
              onRemove={() => setRemoving(w)}
            />
          ))}
          <ConfirmDelete
            item={removing}
            title={I.remove}
            message={(w) => (
              <>
                <Text size="sm">{I.removeConfirm}</Text>
                <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
                  {w.url}
                </Text>
              </>
            )}
            cancelLabel={I.cancel}
            confirmLabel={I.remove}
            testId="webhook-remove-confirm"
            onClose={() => setRemoving(null)}
            onConfirm={(w) => void remove(w)}
          />
        </Stack>
      )}
    </ModalFormCard>
  );
}
