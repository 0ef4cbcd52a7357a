import { ActionIcon, Badge, Button, Group, Paper, Stack, Switch, Text } from '@mantine/core';
import { type ChannelKind, type ChannelTestAnswer, type ChannelView, KIND_NAMES } from '@parley/contracts';
import { IconPlugConnected, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { formatDateTime } from '../../lib/dates';
import { channelKeys } from '../../lib/queryKeys';
import { useWrite } from '../../lib/useWrite';
import { CopyLine } from '../../ui/CopyLine';
import { EntryActions } from '../../ui/ModalFormCard';
import { channelsApi } from './api';
import { activeBody, channelAddress } from './channelDraft';
import { C } from './strings';

/** The red of the provider's words, dark enough on white and light enough on the dark card (AA). */
const ERROR_TEXT = 'light-dark(var(--mantine-color-red-9), var(--mantine-color-red-4))';

/** Where each provider's dashboard takes the webhook URL. */
const WHERE: Record<ChannelKind, string> = {
  whatsapp: C.whatsappWhere,
  messenger: C.messengerWhere,
  instagram: C.instagramWhere,
  telegram: C.telegramWhere,
  line: C.lineWhere,
  sms: C.smsWhere,
  x: C.xWhere,
};

/**
 * A channel in the list: its name, provider, number or bot, department and whether it is active; when the
 * provider last posted and its last error in its own words; the webhook URL and verify token to paste in the
 * provider's dashboard, each with Copy; Test (the provider's answer), Edit and Remove.
 */
export function ChannelRow({
  channel: c,
  department,
  configured,
  offPlan,
  onEdit,
  onDelete,
}: {
  channel: ChannelView;
  department: string | undefined;
  /** Without SECRETS_KEY only Remove is offered: every other write would be refused. */
  configured: boolean;
  /** The plan no longer includes its provider (kept from a plan that had it): why, and only Remove. */
  offPlan?: string | undefined;
  onEdit(): void;
  onDelete(): void;
}) {
  const write = useWrite({ invalidate: channelKeys.list });
  const test = useWrite({ invalidate: channelKeys.list });
  const [result, setResult] = useState<ChannelTestAnswer['data'] | null>(null);
  const address = channelAddress(c);
  // The server refuses any change to a channel the plan leaves out: only Remove is offered.
  const editable = configured && !offPlan;
  return (
    <Paper withBorder p="sm" data-testid="channel-row" data-kind={c.kind}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Stack gap={2} style={{ minWidth: 0 }}>
            <Group gap="xs" wrap="wrap">
              <Text fw={600} style={{ overflowWrap: 'anywhere' }} data-testid="channel-row-name">
                {c.name}
              </Text>
              {department && (
                <Badge variant="light" tt="none">
                  {department}
                </Badge>
              )}
              {!c.active && (
                <Badge variant="default" tt="none" data-testid="channel-inactive">
                  {C.inactive}
                </Badge>
              )}
            </Group>
            <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }} data-testid="channel-provider">
              {KIND_NAMES[c.kind]}
              {address ? ` · ${address}` : ''}
            </Text>
          </Stack>
          <Switch
            label={C.active}
            labelPosition="left"
            aria-label={C.activeFor(c.name)}
            checked={c.active}
            disabled={!editable || write.busy}
            onChange={(e) => {
              // Read now: the event's target is gone by the time the write runs.
              const body = activeBody(c, e.currentTarget.checked);
              void write.run(() => channelsApi.update(c.id, body));
            }}
          />
        </Group>
        <Text size="sm" c="dimmed" data-testid="channel-last-event">
          {c.lastEventAt ? C.lastEvent(formatDateTime(c.lastEventAt)) : C.noEvents}
        </Text>
        {c.lastError && (
          <Text size="sm" c={ERROR_TEXT} style={{ overflowWrap: 'anywhere' }} data-testid="channel-last-error">
            {C.lastError(c.lastErrorAt ? formatDateTime(c.lastErrorAt) : null)} {c.lastError}
          </Text>
        )}
        {c.webhookUrl && (
          <Stack gap={6} data-testid="channel-webhook">
            <CopyLine
              label={C.webhookUrl}
              copyLabel={C.copyWebhookUrl}
              value={c.webhookUrl}
              testId="channel-webhook-url"
            />
            {c.verifyToken && (
              <CopyLine
                label={C.verifyToken}
                copyLabel={C.copyVerifyToken}
                value={c.verifyToken}
                testId="channel-verify-token"
              />
            )}
            <Text size="xs" c="dimmed">
              {WHERE[c.kind]}
            </Text>
          </Stack>
        )}
        {offPlan && (
          <Text size="sm" c={ERROR_TEXT} data-testid="channel-off-plan">
            {C.offPlan(offPlan)}
          </Text>
        )}
        {(write.error || test.error) && (
          <Text size="sm" c={ERROR_TEXT} role="alert">
            {write.error || test.error}
          </Text>
        )}
        <Group justify="space-between" gap="xs">
          {configured ? (
            <Button
              size="compact-sm"
              variant="default"
              leftSection={<IconPlugConnected size={14} />}
              loading={test.busy}
              onClick={() => {
                setResult(null);
                void test.run(async () => setResult(await channelsApi.test(c.id)));
              }}
              data-testid="channel-test"
            >
              {C.test}
            </Button>
          ) : (
            <span />
          )}
          {editable ? (
            <EntryActions name={c.name} editLabel={C.edit} deleteLabel={C.delete} onEdit={onEdit} onDelete={onDelete} />
          ) : (
            <ActionIcon variant="subtle" color="red" aria-label={`${C.delete} ${c.name}`} onClick={onDelete}>
              <IconTrash size={16} />
            </ActionIcon>
          )}
        </Group>
        {result && (
          <Paper withBorder p="xs" data-testid="channel-test-result" data-ok={result.ok}>
            <Group gap="xs" wrap="nowrap" align="flex-start">
              <Badge color={result.ok ? 'teal.9' : 'red.9'} style={{ flexShrink: 0 }}>
                {result.ok ? C.testOkBadge : C.testFailedBadge}
              </Badge>
              <Text size="sm" c={result.ok ? undefined : ERROR_TEXT} style={{ overflowWrap: 'anywhere' }}>
                {result.response}
              </Text>
            </Group>
          </Paper>
        )}
      </Stack>
    </Paper>
  );
}
