import {
  ActionIcon,
  Badge,
  Box,
  Button,
  Group,
  Paper,
  ScrollArea,
  Stack,
  Text,
  ThemeIcon,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { type ChatItem, WORKSPACE_STRINGS as W } from '@parley/contracts';
import { IconArrowLeft, IconMessages, IconPlus, IconUsers } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type ComponentType, Suspense, useEffect, useRef, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { HttpError } from '../../lib/http';
import { chatKeys } from '../../lib/queryKeys';
import { realtime, useRealtimeEvent } from '../../lib/realtime';
import { useMe } from '../../lib/session';
import { shell } from '../../lib/shellStore';
import { useFitHeight } from '../../lib/useFitHeight';
import { toast } from '../../ui/toast';
import { chatApi, useChatList, useMeetings } from './api';
import { GroupModal } from './GroupModal';
import { NewChatModal } from './NewChatModal';

/** CHAT-01..CHAT-10: the Workspace chats at /chat, and the open chat at /chat/:id with the conversation pane. */
export function ChatScreen({
  Pane,
}: {
  /** The conversation pane (the conversation feature's, loaded lazily by the screen that composes this one). */
  Pane: ComponentType<{ ticketId: number }>;
}) {
  const { '*': rest } = useParams();
  const chatId = Number(rest?.split('/')[0]) || null;
  const navigate = useNavigate();
  const qc = useQueryClient();
  const [pages, setPages] = useState(1);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState(false);
  const list = useChatList(pages);
  const chats = list.data?.data ?? [];
  const meetings = useMeetings(chats.map((c) => c.id));
  // CHAT-05: the list's totals are the freshest (after a read too): they set the Workspace tab badge.
  const unreadChats = list.data?.unread;
  useEffect(() => {
    if (unreadChats !== undefined) shell.set({ chatBadge: unreadChats > 0, chatUnread: unreadChats });
  }, [unreadChats]);

  // The open chat: members only (403/404 send the reader back to the list, as the pane does for tickets).
  const open = useQuery({
    queryKey: chatKeys.one(chatId ?? 0),
    queryFn: () => chatApi.one(chatId!),
    enabled: chatId !== null,
    retry: (n, err) => !(err instanceof HttpError && err.status >= 400 && err.status < 500) && n < 2,
  });
  const denied = open.error instanceof HttpError && [400, 403, 404].includes(open.error.status);
  // SHELL-57: removed from the chat that is open: the removal modal, and back to the list. The
  // refetch that follows is refused; the removal already said why, so no second notice for it.
  const me = useMe();
  const removedFrom = useRef<number | null>(null);
  useRealtimeEvent('participantChanged', (e) => {
    if (chatId === null || e.ticketId !== chatId || !e.removed.includes(me.username)) return;
    removedFrom.current = chatId;
    shell.showRemoval();
    navigate('/chat', { replace: true });
  });
  useEffect(() => {
    if (!denied) return;
    if (removedFrom.current !== chatId) toast({ message: W.cannotRead, color: 'red' });
    navigate('/chat', { replace: true });
  }, [denied, navigate, chatId]);

  // Reading clears unread: on opening, and for every message arriving while the chat is open and seen.
  useEffect(() => {
    if (!chatId || !open.data) return;
    const read = () => {
      if (document.visibilityState !== 'visible') return;
      void chatApi
        .read(chatId)
        .then(() => qc.invalidateQueries({ queryKey: chatKeys.all }))
        .catch(() => {});
    };
    read();
    const off = realtime.on('newMessage', (m) => {
      if (m.ticketId === chatId) read();
    });
    document.addEventListener('visibilitychange', read);
    return () => {
      off();
      document.removeEventListener('visibilitychange', read);
    };
  }, [chatId, open.data, qc]);

  const current = open.data ?? chats.find((c) => c.id === chatId);
  const onThis = chatId !== null && meetings.onMeeting === chatId;
  // Narrow screens show the list or the open chat, not both.
  const narrow = useMediaQuery('(max-width: 48em)') ?? false;
  const { box, height } = useFitHeight(narrow ? 60 : 0);

  return (
    // The screen fills the window below the banners; the pane scrolls inside it.
    <Group ref={box} align="stretch" gap={0} wrap="nowrap" style={{ height, minHeight: 360 }}>
      <Stack
        w={narrow ? '100%' : 320}
        p="sm"
        gap="xs"
        display={narrow && chatId ? 'none' : undefined}
        style={{ borderRight: '1px solid var(--mantine-color-default-border)', flexShrink: 0 }}
        data-testid="chat-list"
      >
        <Group justify="space-between">
          <Title order={1} size="h4">
            {W.title}
          </Title>
          <Button size="xs" leftSection={<IconPlus size={14} />} onClick={() => setCreating(true)}>
            {W.newChat}
          </Button>
        </Group>
        <ScrollArea style={{ flex: 1 }}>
          {chats.length === 0 && list.isSuccess && (
            <Text c="dimmed" size="sm">
              {W.noChats}
            </Text>
          )}
          <Stack gap={4}>
            {chats.map((c) => (
              <ChatRow
                key={c.id}
                chat={c}
                active={c.id === chatId}
                meeting={meetings.counts[c.id] ?? 0}
                onOpen={() => navigate(`/chat/${c.id}`)}
              />
            ))}
          </Stack>
          {(list.data?.count ?? 0) > chats.length && (
            <Button variant="subtle" fullWidth onClick={() => setPages(pages + 1)}>
              {W.showMore}
            </Button>
          )}
        </ScrollArea>
      </Stack>
      <Box style={{ flex: 1, minWidth: 0 }} display={narrow && !chatId ? 'none' : undefined}>
        {chatId && !denied ? (
          <Stack h="100%" gap={0}>
            <Group
              p="xs"
              justify="space-between"
              wrap="nowrap"
              style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}
            >
              {narrow && (
                <ActionIcon variant="subtle" aria-label="Back" onClick={() => navigate('/chat')}>
                  <IconArrowLeft size={18} />
                </ActionIcon>
              )}
              <Box style={{ minWidth: 0, flex: 1 }}>
                <Text fw={600} truncate data-testid="chat-title">
                  {current?.title ?? ''}
                </Text>
                <Text size="xs" c="dimmed" truncate>
                  {current?.members.map((m) => m.name || m.username).join(', ')}
                </Text>
              </Box>
              <Group gap="xs" wrap="nowrap">
                {current?.kind === 'group' && (
                  <Button size="xs" variant="default" onClick={() => setEditing(true)}>
                    {W.members}
                  </Button>
                )}
                {(meetings.counts[chatId] ?? 0) > 0 && (
                  <Badge variant="light" leftSection={<IconUsers size={12} />} data-testid="meeting-count">
                    {W.inMeeting(meetings.counts[chatId] ?? 0)}
                  </Badge>
                )}
                <Button
                  size="xs"
                  variant={onThis ? 'filled' : 'light'}
                  color={onThis ? 'red' : undefined}
                  onClick={() => void (onThis ? meetings.leave(chatId) : meetings.join(chatId))}
                >
                  {onThis ? W.leaveMeeting : W.joinMeeting}
                </Button>
              </Group>
            </Group>
            {onThis && (
              // CHAT-10: the meeting panel while on a meeting (presence only for now: CHAT-13 is design).
              <Paper m="xs" p="xs" withBorder role="status" data-testid="meeting-panel">
                <Group gap="xs">
                  <ThemeIcon variant="light" size="sm">
                    <IconUsers size={14} />
                  </ThemeIcon>
                  <Text size="sm">
                    {W.onMeeting} · {W.inMeeting(meetings.counts[chatId] ?? 1)}
                  </Text>
                </Group>
              </Paper>
            )}
            <Box style={{ flex: 1, minHeight: 0 }}>
              {open.data && (
                <Suspense fallback={null}>
                  <Pane ticketId={chatId} />
                </Suspense>
              )}
            </Box>
          </Stack>
        ) : (
          // CHAT-03: no conversation selected.
          <Stack align="center" justify="center" h="100%" gap="xs" data-testid="chat-empty">
            <ThemeIcon variant="light" size={56} radius="xl">
              <IconMessages size={30} />
            </ThemeIcon>
            <Title order={2} size="h4">
              {W.empty}
            </Title>
            <Text c="dimmed">{W.emptyBody}</Text>
          </Stack>
        )}
      </Box>
      {current && current.kind === 'group' && (
        <GroupModal
          chat={current}
          opened={editing}
          onClose={() => {
            setEditing(false);
            void qc.invalidateQueries({ queryKey: chatKeys.all });
          }}
        />
      )}
      <NewChatModal
        opened={creating}
        onClose={() => setCreating(false)}
        onCreated={(chat) => {
          void qc.invalidateQueries({ queryKey: chatKeys.all });
          navigate(`/chat/${chat.id}`);
        }}
      />
    </Group>
  );
}

function ChatRow({
  chat,
  active,
  meeting,
  onOpen,
}: {
  chat: ChatItem;
  active: boolean;
  meeting: number;
  onOpen: () => void;
}) {
  const last = chat.last_message;
  return (
    <UnstyledButton
      onClick={onOpen}
      p="xs"
      aria-current={active ? 'page' : undefined}
      data-testid={`chat-item-${chat.id}`}
      style={{
        borderRadius: 'var(--mantine-radius-sm)',
        background: active ? 'var(--mantine-primary-color-light)' : undefined,
      }}
    >
      <Group justify="space-between" wrap="nowrap" gap="xs">
        <Box style={{ minWidth: 0 }}>
          <Group gap={6} wrap="nowrap">
            {chat.kind === 'group' && <IconUsers size={14} aria-label="Group" />}
            <Text size="sm" fw={chat.unread > 0 ? 700 : 500} truncate>
              {chat.title}
            </Text>
          </Group>
          <Text size="xs" c="dimmed" truncate>
            {last
              ? last.sender === 'server'
                ? last.message
                : `${last.sender_name || last.sender}: ${last.message}`
              : ''}
          </Text>
        </Box>
        <Group gap={4} wrap="nowrap">
          {meeting > 0 && (
            <Badge size="sm" variant="outline" title={W.inMeeting(meeting)}>
              <IconUsers size={10} /> {meeting}
            </Badge>
          )}
          {chat.unread > 0 && (
            <Badge size="sm" circle data-testid="chat-unread" aria-label={`${chat.unread} unread`}>
              {chat.unread > 99 ? '99+' : chat.unread}
            </Badge>
          )}
        </Group>
      </Group>
    </UnstyledButton>
  );
}
