import { Anchor, Badge, Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import {
  channelName,
  DELIVERY_STRINGS as D,
  type FailedDeliveriesAnswer,
  type FailedDelivery,
} from '@parley/contracts';
import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { formatDateTime } from '../../lib/dates';
import { api } from '../../lib/http';
import { channelKeys } from '../../lib/queryKeys';
import { useRealtimeEvent } from '../../lib/realtime';
import { toastWrite } from '../../ui/toast';

const failedApi = {
  page: (before?: number) =>
    api<FailedDeliveriesAnswer>('GET', `/api/deliveries/failed${before ? `?before=${before}` : ''}`),
  /** A mailbox reply and a messaging reply are each sent again by their own route. */
  retry: (d: FailedDelivery) =>
    api('POST', d.kind === 'email' ? '/api/ticket/message/reply/retry' : '/api/channels/message/retry', { id: d.id }),
};

/**
 * Settings -> Channels: every reply of the account that could not be sent, on e-mail through a mailbox or on a
 * messaging channel, newest first, with the server's or provider's words, a link to its ticket and Retry.
 * The list follows the delivery events: a reply that fails appears, one sent again leaves.
 */
export function FailedDeliveriesCard() {
  const qc = useQueryClient();
  const [busy, setBusy] = useState<number | null>(null);
  const q = useInfiniteQuery({
    queryKey: channelKeys.failed,
    queryFn: ({ pageParam }) => failedApi.page(pageParam),
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (last) => (last.more ? last.data.at(-1)?.id : undefined),
  });
  const refresh = () => void qc.invalidateQueries({ queryKey: channelKeys.failed });
  useRealtimeEvent('messageDelivery', refresh);
  useRealtimeEvent('messageEmailState', refresh);
  const rows = q.data?.pages.flatMap((p) => p.data) ?? [];
  const retry = async (d: FailedDelivery) => {
    setBusy(d.id);
    await toastWrite(() => failedApi.retry(d), D.retried);
    setBusy(null);
    refresh();
  };
  return (
    <Paper withBorder radius="md" p="md" data-testid="failed-deliveries">
      <Stack gap="sm">
        <div>
          <Title order={2} size="h4">
            {D.title}
          </Title>
          <Text size="sm" c="dimmed">
            {D.intro}
          </Text>
        </div>
        {q.data && rows.length === 0 && (
          <Text size="sm" c="dimmed">
            {D.none}
          </Text>
        )}
        {rows.map((d) => (
          <Group key={d.id} justify="space-between" align="flex-start" wrap="nowrap" data-testid="failed-delivery">
            <Stack gap={2} style={{ minWidth: 0 }}>
              <Group gap="xs" wrap="wrap">
                <Anchor component={Link} to={`/ticket/${d.ticketId}`} size="sm" fw={500}>
                  {`#${d.ticketNumber} ${d.title}`}
                </Anchor>
                <Badge variant="light" size="sm">
                  {d.kind === 'email' ? D.email : channelName(d.channel)}
                </Badge>
              </Group>
              <Text size="sm" lineClamp={1}>
                {d.text}
              </Text>
              <Text size="xs" c="light-dark(var(--mantine-color-red-9), var(--mantine-color-red-4))">
                {d.error}
              </Text>
              <Text size="xs" c="dimmed">
                {`${d.sender} · ${formatDateTime(d.at)}`}
              </Text>
            </Stack>
            <Button size="xs" variant="light" loading={busy === d.id} onClick={() => void retry(d)}>
              {D.retry}
            </Button>
          </Group>
        ))}
        {q.hasNextPage && (
          <Group justify="center">
            <Button variant="subtle" size="xs" loading={q.isFetchingNextPage} onClick={() => void q.fetchNextPage()}>
              {D.more}
            </Button>
          </Group>
        )}
      </Stack>
    </Paper>
  );
}
