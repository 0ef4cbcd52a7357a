import { Badge, Box, Button, Group, Paper, ScrollArea, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { LIVECHAT_STRINGS as L, type LiveChatGroup } from '@parley/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { type ComponentType, lazy, Suspense, useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { api } from '../../lib/http';
import { realtime } from '../../lib/realtime';
import {
  acceptLiveChat,
  liveChatKeys,
  useLiveChatBadge,
  useLiveChatList,
  useLiveChatQueue,
  useReadOpenChat,
} from './api';

const Pane = lazy(async () => {
  const m = await import('../conversation/ConversationPane');
  return { default: m.ConversationPane as ComponentType<{ ticketId: number }> };
});

/**
 * LIVECHAT-03: the incoming live chats banner with Take one (mounted by the shell's banner area for every
 * signed-in user, so it also keeps the Live Chats tab's badge, LIVECHAT-17).
 */
export function IncomingLiveChats() {
  const queue = useLiveChatQueue();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  const count = queue.data?.count ?? 0;
  useLiveChatBadge(count);
  if (count === 0) return null;
  return (
    <Paper withBorder p="xs" data-testid="banner-livechat" role="status">
      <Group justify="space-between">
        <Text size="sm">{L.incoming(count)}</Text>
        <Button
          size="xs"
          loading={busy}
          onClick={async () => {
            setBusy(true);
            const r = await acceptLiveChat(null);
            setBusy(false);
            if (!r.ok) return notifications.show({ color: 'red', message: r.error });
            void qc.invalidateQueries({ queryKey: liveChatKeys.list });
            navigate(`/livechat/${r.ticket_id}`);
          }}
        >
          {L.takeOne}
        </Button>
      </Group>
    </Paper>
  );
}

/** LIVECHAT-02, LIVECHAT-12, LIVECHAT-13, LIVECHAT-18: groups by visitor session, then the open chat. */
export function LiveChatsScreen() {
  const { '*': rest } = useParams();
  const ticketId = Number(rest?.split('/')[0]) || null;
  const list = useLiveChatList();
  const navigate = useNavigate();
  const [open, setOpen] = useState<Record<number, boolean>>({});
  const groups = list.groups;
  const current = groups.flatMap((g) => g.livechats).find((c) => c.ticket_id === ticketId);
  useReadOpenChat(ticketId);

  // LIVECHAT-11, LIVECHAT-14: removed from the open chat: home, with the notice.
  useEffect(
    () =>
      realtime.on('removeLiveChat', (d) => {
        if ((d as { ticket_id: number }).ticket_id !== ticketId) return;
        notifications.show({ color: 'red', message: L.removedNotice });
        navigate('/');
      }),
    [ticketId, navigate],
  );

  return (
    <Group align="stretch" gap={0} wrap="nowrap" h="100%">
      <Stack w={320} p="sm" gap="xs" style={{ borderRight: '1px solid var(--mantine-color-default-border)' }}>
        <Title order={1} size="h4">
          {L.title}
        </Title>
        <ScrollArea style={{ flex: 1 }}>
          {groups.length === 0 && !list.isPending && <Text c="dimmed">{L.empty}</Text>}
          <Stack gap="xs">
            {groups.map((g) => (
              <GroupItem
                key={g.session_id}
                g={g}
                open={open[g.session_id] ?? !g.collapsed}
                current={ticketId}
                toggle={() => setOpen({ ...open, [g.session_id]: !(open[g.session_id] ?? !g.collapsed) })}
              />
            ))}
          </Stack>
          {list.hasNextPage && (
            <Button variant="subtle" loading={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
              {L.showMore}
            </Button>
          )}
        </ScrollArea>
      </Stack>
      <Box style={{ flex: 1, minWidth: 0 }}>
        {ticketId ? (
          <Stack h="100%" gap={0}>
            {current?.state === 'chatting' && (
              <Group p="xs" gap="xs" justify="flex-end">
                <Button
                  size="xs"
                  variant="light"
                  onClick={() => void api('POST', '/api/livechat/convert', { id: ticketId })}
                >
                  {L.convert}
                </Button>
                <Button size="xs" color="red" onClick={() => void api('POST', '/api/livechat/end', { id: ticketId })}>
                  {L.end}
                </Button>
              </Group>
            )}
            {current && current.state !== 'chatting' && (
              <Badge m="xs">{current.state === 'converted' ? L.converted : L.ended}</Badge>
            )}
            <Box style={{ flex: 1, minHeight: 0 }} px="md">
              <Suspense fallback={null}>
                <Pane ticketId={ticketId} />
              </Suspense>
            </Box>
          </Stack>
        ) : (
          <Stack align="center" justify="center" h="100%">
            <Text c="dimmed">{L.selectChat}</Text>
          </Stack>
        )}
      </Box>
    </Group>
  );
}

function GroupItem({
  g,
  open,
  toggle,
  current,
}: {
  g: LiveChatGroup;
  open: boolean;
  toggle: () => void;
  current: number | null;
}) {
  const navigate = useNavigate();
  return (
    <Paper withBorder p="xs" data-testid="livechat-group">
      <UnstyledButton onClick={toggle} w="100%" aria-expanded={open}>
        <Group justify="space-between">
          <Text fw={600} size="sm">
            {g.session_name}
          </Text>
          <Badge size="sm" variant="light">
            {g.livechats.length}
          </Badge>
        </Group>
      </UnstyledButton>
      {open &&
        g.livechats.map((c) => (
          <UnstyledButton
            key={c.id}
            w="100%"
            p={4}
            onClick={() => navigate(`/livechat/${c.ticket_id}`)}
            bg={c.ticket_id === current ? 'var(--mantine-primary-color-light)' : undefined}
            data-testid={`livechat-${c.ticket_id}`}
          >
            <Group justify="space-between" wrap="nowrap">
              <Text size="sm" truncate>
                #{c.ticket_number} {c.title}
              </Text>
              <Text size="xs" c="dimmed">
                {c.state === 'chatting' ? c.agent : c.state === 'converted' ? L.converted : L.ended}
              </Text>
            </Group>
          </UnstyledButton>
        ))}
    </Paper>
  );
}
