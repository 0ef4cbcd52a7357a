import {
  ActionIcon,
  Badge,
  Button,
  Code,
  CopyButton,
  Group,
  Paper,
  SimpleGrid,
  Stack,
  Switch,
  Text,
} from '@mantine/core';
import type { Mailbox, MailboxTestAnswer } from '@parley/contracts';
import { IconPlugConnected, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { formatDateTime } from '../../lib/dates';
import { mailboxKeys } from '../../lib/queryKeys';
import { useWrite } from '../../lib/useWrite';
import { EntryActions } from '../../ui/ModalFormCard';
import { mailboxesApi } from './api';
import { activeBody, serverSummary } from './mailboxDraft';
import { M } from './strings';

/** The red of the server's error words, dark enough on white and light enough on the dark card (AA). */
const ERROR_TEXT = 'light-dark(var(--mantine-color-red-9), var(--mantine-color-red-4))';

/** One side of a connection test: whether the login worked, and the server's own words. */
function TestSide({ kind, result }: { kind: 'IMAP' | 'SMTP' | 'Graph'; result: MailboxTestAnswer['imap'] }) {
  if (!result) return null;
  return (
    <Paper withBorder p="xs" data-testid={`mailbox-test-${kind.toLowerCase()}`} data-ok={result.ok}>
      <Group gap="xs" mb={4}>
        <Text fw={600} size="sm">
          {kind}
        </Text>
        <Badge color={result.ok ? 'teal.9' : 'red.9'}>{result.ok ? M.testOkBadge : M.testFailedBadge}</Badge>
      </Group>
      <Text size="sm" c={result.ok ? undefined : ERROR_TEXT} style={{ overflowWrap: 'anywhere' }}>
        {result.response}
      </Text>
    </Paper>
  );
}

/**
 * A mailbox in the list: its address, name, department and servers, when mail was last fetched and the
 * fetcher's last error in the server's words; the active switch, the connection test, Edit and Delete. Without
 * SECRETS_KEY (`configured` false) only Delete is offered: every other write would be refused.
 */
export function MailboxRow({
  mailbox: m,
  department,
  configured,
  onEdit,
  onDelete,
}: {
  mailbox: Mailbox;
  department: string | undefined;
  configured: boolean;
  onEdit(): void;
  onDelete(): void;
}) {
  const write = useWrite({ invalidate: mailboxKeys.list });
  const [result, setResult] = useState<MailboxTestAnswer | null>(null);
  const test = useWrite();
  const [renewing, setRenewing] = useState(false);
  return (
    <Paper withBorder p="sm" data-testid="mailbox-row">
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Stack gap={2} style={{ minWidth: 0 }}>
            <Group gap="xs" wrap="wrap">
              <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
                {m.address}
              </Text>
              {department && (
                <Badge variant="light" tt="none">
                  {department}
                </Badge>
              )}
              {!m.active && (
                <Badge variant="default" tt="none">
                  {M.inactive}
                </Badge>
              )}
            </Group>
            {m.name && (
              <Text size="sm" c="dimmed">
                {m.name}
              </Text>
            )}
          </Stack>
          <Switch
            label={M.active}
            labelPosition="left"
            aria-label={M.activeFor(m.address)}
            checked={m.active}
            disabled={!configured || write.busy}
            onChange={(e) => {
              // Read now: the event's target is gone by the time the write runs.
              const body = activeBody(m, e.currentTarget.checked);
              void write.run(() => mailboxesApi.update(m.id, body));
            }}
          />
        </Group>
        {m.graph ? (
          <Group gap="md" wrap="wrap" style={{ rowGap: 0 }}>
            <Text size="sm" style={{ overflowWrap: 'anywhere' }} data-testid="mailbox-graph-summary">
              {M.graphSummary(m.graph.tenantId)}
            </Text>
            {m.graph.subscriptionExpiresAt && (
              <Text size="sm" c="dimmed" data-testid="mailbox-graph-subscription">
                {M.subscribedUntil(formatDateTime(m.graph.subscriptionExpiresAt))}
              </Text>
            )}
          </Group>
        ) : (
          <Group gap="md" wrap="wrap" style={{ rowGap: 0 }}>
            <Text size="sm" style={{ overflowWrap: 'anywhere' }} data-testid="mailbox-imap-summary">
              {m.kind === 'forwarding' ? M.forwardingOnlySummary : `IMAP ${serverSummary(m.imap)}`}
            </Text>
            <Text size="sm" style={{ overflowWrap: 'anywhere' }} data-testid="mailbox-smtp-summary">
              SMTP {serverSummary(m.smtp)}
            </Text>
          </Group>
        )}
        {m.forwardingAddress && (
          <Stack gap={2} data-testid="mailbox-forwarding" title={M.forwardHint}>
            <Text size="sm">{M.forwardTo}</Text>
            <Group gap="xs" wrap="nowrap">
              <Code style={{ overflowWrap: 'anywhere', minWidth: 0 }}>{m.forwardingAddress}</Code>
              <CopyButton value={m.forwardingAddress}>
                {({ copied, copy }) => (
                  <Button size="compact-xs" variant="subtle" onClick={copy} style={{ flexShrink: 0 }}>
                    {copied ? M.copied : M.copy}
                  </Button>
                )}
              </CopyButton>
              {!renewing && (
                <Button
                  size="compact-xs"
                  variant="subtle"
                  onClick={() => setRenewing(true)}
                  style={{ flexShrink: 0 }}
                  disabled={write.busy}
                >
                  {M.renewForwarding}
                </Button>
              )}
            </Group>
            {renewing && (
              <Group gap="xs" data-testid="mailbox-renew-ask">
                <Text size="sm">{M.renewAsk}</Text>
                <Button
                  size="compact-xs"
                  color="red"
                  loading={write.busy}
                  onClick={() =>
                    void write.run(async () => {
                      await mailboxesApi.renewForwarding(m.id);
                      setRenewing(false);
                    })
                  }
                >
                  {M.renewConfirm}
                </Button>
                <Button size="compact-xs" variant="default" onClick={() => setRenewing(false)}>
                  {M.cancel}
                </Button>
              </Group>
            )}
          </Stack>
        )}
        {/* Nothing is fetched for a forwarding-only mailbox: its mail is pushed to the server. */}
        {m.kind !== 'forwarding' && (
          <Text size="sm" c="dimmed" data-testid="mailbox-last-fetch">
            {m.lastFetchAt ? M.lastFetch(formatDateTime(m.lastFetchAt)) : M.neverFetched}
          </Text>
        )}
        {m.lastError && (
          <Text size="sm" c={ERROR_TEXT} data-testid="mailbox-last-error">
            {M.lastError(formatDateTime(m.lastErrorAt))} {m.lastError}
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
                void test.run(async () => setResult(await mailboxesApi.test(m.id)));
              }}
              data-testid="mailbox-test"
            >
              {M.test}
            </Button>
          ) : (
            <span />
          )}
          {configured ? (
            <EntryActions
              name={m.address}
              editLabel={M.edit}
              deleteLabel={M.delete}
              onEdit={onEdit}
              onDelete={onDelete}
            />
          ) : (
            <ActionIcon variant="subtle" color="red" aria-label={`${M.delete} ${m.address}`} onClick={onDelete}>
              <IconTrash size={16} />
            </ActionIcon>
          )}
        </Group>
        {result && (
          <SimpleGrid cols={{ base: 1, sm: result.imap ? 2 : 1 }} spacing="xs" data-testid="mailbox-test-result">
            <TestSide kind="IMAP" result={result.imap} />
            <TestSide kind="SMTP" result={result.smtp} />
            <TestSide kind="Graph" result={result.graph} />
          </SimpleGrid>
        )}
      </Stack>
    </Paper>
  );
}
