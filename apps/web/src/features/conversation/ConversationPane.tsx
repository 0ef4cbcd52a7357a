import { Alert, Button, Center, Divider, Group, Loader, Modal, Paper, Stack, Text } from '@mantine/core';
import {
  isEmailChannel,
  LIVECHAT_STRINGS,
  META_WINDOW_CHANNELS,
  type Message,
  TICKET_CHANNELS_WITHOUT_AI,
  wantsAiHint,
} from '@parley/contracts';
import { IconPinFilled } from '@tabler/icons-react';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { useTicketInfo } from '../../lib/api/ticketInfo';
import { HttpError } from '../../lib/http';
import { CUSTOMER_SENDER } from '../../lib/people';
import { useRealtimeEvent } from '../../lib/realtime';
import { useMe } from '../../lib/session';
import { useConnected } from '../../lib/useConnected';
import { toast } from '../../ui/toast';
import { conversationApi } from './api';
import { Composer } from './Composer';
import { EmailComposer } from './EmailComposer';
import { onSendFailed } from './live';
import { MessageItem } from './MessageItem';
import { groupByDate, othersRepliedSince, type ShownMessage, seenByMessage, shownMessages } from './model';
import { outbox } from './outbox';
import { PostReplyChoice, type PostReplyMode, PrivateReplyForm } from './PostReplyChoice';
import { CONVERSATION_STRINGS as S } from './strings';
import {
  useConversationData,
  useEncryptionKey,
  useOutboxItems,
  useReadReceipts,
  useTicketRoom,
  useTicketViewers,
  useTyping,
} from './useConversation';
import { MetaWindowClosed, useWhatsAppWindow, WhatsAppTemplateForm } from './WhatsAppWindow';

/**
 * MSG-14, MSG-15: the failure modal with Retry (the same queue- id goes again), for a message the server
 * refused or one refused before it left (MSG-12: no encryption key on this browser).
 */
function SendFailedModal() {
  const [failed, setFailed] = useState<{ clientId: string; error: string } | null>(null);
  useEffect(() => onSendFailed((clientId, error) => setFailed({ clientId, error })), []);
  useEffect(() => outbox.onRefused((clientId, error) => setFailed({ clientId, error })), []);
  return (
    <Modal opened={failed !== null} onClose={() => setFailed(null)} title={S.sendFailedTitle} centered>
      <Text size="sm" role="alert">
        {failed && S.sendFailed(failed.error)}
      </Text>
      <Group justify="flex-end" mt="md">
        <Button variant="default" onClick={() => setFailed(null)}>
          {S.ok}
        </Button>
        <Button
          onClick={() => {
            // Closed first: a retry refused at once (no key yet) opens it again with its error.
            setFailed(null);
            if (failed) outbox.retry(failed.clientId);
          }}
        >
          {S.retry}
        </Button>
      </Group>
    </Modal>
  );
}

/** MSG-20 (design): the pinned messages of the window in a bar at the top; a click scrolls to one. */
function PinnedBar({ pinned, onUnpin }: { pinned: Message[]; onUnpin(m: Message): void }) {
  if (pinned.length === 0) return null;
  return (
    <Paper withBorder p={6} radius="sm" data-testid="pinned-bar">
      <Stack gap={2}>
        {pinned.map((m) => (
          <Group key={m.id} gap={6} wrap="nowrap">
            <IconPinFilled size={14} aria-hidden />
            <Text
              size="sm"
              truncate
              style={{ flex: 1, cursor: 'pointer' }}
              onClick={() =>
                document
                  .querySelector(`[data-testid="message"][data-id="${m.id}"]`)
                  ?.scrollIntoView({ block: 'center' })
              }
            >
              <b>{m.senderName || m.sender}:</b> {m.message}
            </Text>
            <Button size="compact-xs" variant="subtle" onClick={() => onUnpin(m)}>
              {S.unpin}
            </Button>
          </Group>
        ))}
      </Stack>
    </Paper>
  );
}

/** The conversation of a ticket: history, live updates, sending through the outbox. */
export function ConversationPane({ ticketId }: { ticketId: number }) {
  const me = useMe();
  const navigate = useNavigate();
  const location = useLocation();
  const connected = useConnected();
  const valid = Number.isInteger(ticketId) && ticketId > 0;
  const { query, loadOlder, loadingOlder, jumpToLatest } = useConversationData(ticketId);
  useTicketRoom(ticketId);
  const viewers = useTicketViewers(ticketId, me.username);
  const typing = useTyping(ticketId, me.username);
  const reads = useReadReceipts(ticketId, query.data, me.username);
  const items = useOutboxItems();
  // MSG-12, CRYPT-06, CRYPT-07: an encrypted ticket needs this browser's key to send; the pane waits for the
  // ticket's method so nothing is sent before it is known.
  const info = useTicketInfo(ticketId);
  // A live chat that ends while it is open closes the composer (the ticket's info says so after a refetch).
  useRealtimeEvent('liveChatEnded', (d) => {
    if (d.ticket_id === ticketId) void info.refetch();
  });
  const encryption = info.data?.encryption_method ?? '';
  const key = useEncryptionKey(ticketId, encryption);
  const [replyTo, setReplyTo] = useState<Message | null>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const before = useRef<{ height: number; top: number } | null>(null);

  // MSG-47: no access (a Workspace chat of others): a toast, and back to the list it was opened from. A
  // ticket that does not exist (or is another account's) shows the crash text instead (001 §2, §8).
  const denied = query.error instanceof HttpError && query.error.status === 403;
  const list = `/${location.pathname.split('/')[1] || 'ticket'}`;
  useEffect(() => {
    if (!denied) return;
    toast({ message: S.cannotRead, color: 'red' });
    navigate(list, { replace: true });
  }, [denied, navigate, list]);

  const data = query.data;
  const shown: ShownMessage[] = useMemo(
    () => (data ? shownMessages(data, items, me.username, me.name || me.username) : []),
    [data, items, me.username, me.name],
  );
  const entries = useMemo(() => groupByDate(shown, data?.count ?? 0), [shown, data?.count]);

  // AI-03: guidance on the customer's newest message (which the rule allows: never the agent's own or the
  // translation bot's; a colleague's line is not advised on either), until the agent has answered it.
  // Not in the team's own chats.
  const guided = useMemo(() => {
    if (!data || !me.username || TICKET_CHANNELS_WITHOUT_AI.includes(data.channel ?? '')) return undefined;
    const i = data.messages.findLastIndex(
      (m) => m.id > 0 && m.sender === CUSTOMER_SENDER && wantsAiHint(m, me.username),
    );
    const target = data.messages[i];
    if (!target || data.messages.slice(i + 1).some((m) => m.sender === me.username)) return undefined;
    return { message: target, channel: data.channel ?? '' };
  }, [data, me.username]);

  // Someone whose message just arrived is no longer typing.
  const last = data?.messages.at(-1);
  useEffect(() => {
    if (last) typing.clear(last.sender);
  }, [last, typing.clear]);

  // MSG-41: keep the reader where they were when older messages come in on top; follow the bottom otherwise.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (before.current) {
      el.scrollTop = el.scrollHeight - before.current.height + before.current.top;
      before.current = null;
    } else if (stick.current) el.scrollTop = el.scrollHeight;
  });
  // Images and notes change the height after rendering: a reader at the bottom stays at the bottom.
  const inner = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = inner.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => {
      const s = scroller.current;
      if (s && stick.current && !before.current) s.scrollTop = s.scrollHeight;
    });
    ro.observe(el);
    return () => ro.disconnect();
  });
  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
    if (el.scrollTop < 40 && data?.olderOut && !loadingOlder) {
      before.current = { height: el.scrollHeight, top: el.scrollTop };
      void loadOlder();
    }
  };

  // Meta (WhatsApp, Messenger, Instagram) lets the team write freely only within 24 hours of the customer's
  // last message: the window is asked again whenever the customer writes.
  const whatsapp = data?.channel === 'WHATSAPP';
  const metaWindow = META_WINDOW_CHANNELS.includes((data?.channel ?? '') as never);
  const lastCustomerId = useMemo(
    () => data?.messages.filter((m) => m.sender === CUSTOMER_SENDER).at(-1)?.id ?? 0,
    [data?.messages],
  );
  const whatsappWindow = useWhatsAppWindow(ticketId, valid && metaWindow, lastCustomerId);
  // A Facebook post's comments: the reply goes under the post, or privately by Messenger.
  const [postReply, setPostReply] = useState<PostReplyMode>('public');

  // Who has read up to which message: shown under the newest message each has read.
  const seenBy = useMemo(() => seenByMessage(reads, data?.messages ?? []), [reads, data?.messages]);

  if (!valid || (query.isError && !denied))
    return (
      <Center mih={200} data-testid="conversation-crashed">
        <Text c="red" role="alert">
          {S.crashed}
        </Text>
      </Center>
    );
  if (!data || info.isPending)
    return (
      <Center mih={200}>
        <Loader aria-label="Loading" />
      </Center>
    );

  const pinned = data.messages.filter((m) => m.pinned);
  const email = isEmailChannel(data.channel ?? '');
  const windowClosed = metaWindow && whatsappWindow.data?.open === false;
  return (
    <Stack gap="xs" h="100%" mih={0} data-testid="conversation-pane" data-ticket={ticketId}>
      {viewers.length > 0 && (
        <Text size="xs" c="dimmed" ta="right" data-testid="ticket-viewers">
          {S.alsoViewing(viewers)}
        </Text>
      )}
      <PinnedBar pinned={pinned} onUnpin={(m) => void conversationApi.pin(m.id, false).catch(() => {})} />
      {!connected && items.some((i) => i.ticket_id === ticketId) && (
        <Alert color="yellow" py={6} data-testid="offline-queued">
          {S.offlineQueued}
        </Alert>
      )}
      <div
        ref={scroller}
        onScroll={onScroll}
        data-testid="conversation-scroll"
        style={{
          flex: 1,
          minHeight: email || windowClosed ? 160 : 240,
          // The e-mail composer (addresses, subject, a taller body) and WhatsApp's template form need more of
          // the screen than the chat composer.
          maxHeight: email || windowClosed ? 'calc(100dvh - 440px)' : 'calc(100dvh - 260px)',
          overflowY: 'auto',
          paddingRight: 6,
        }}
      >
        <Stack gap={6} ref={inner}>
          {data.olderOut && (
            <Center>
              <Button size="compact-xs" variant="subtle" loading={loadingOlder} onClick={() => void loadOlder()}>
                {S.loadOlder}
              </Button>
            </Center>
          )}
          {entries.map((e) =>
            e.kind === 'count' ? (
              <Text key="count" ta="center" size="xs" c="dimmed" data-testid="message-count">
                {S.count(e.count)}
              </Text>
            ) : e.kind === 'day' ? (
              <Divider key={`day-${e.day}`} label={e.day} labelPosition="center" data-testid="message-day" />
            ) : (
              <MessageItem
                key={e.m.key}
                m={e.m}
                me={me.username}
                admin={me.admin}
                seenBy={typeof e.m.id === 'number' ? (seenBy.get(e.m.id) ?? []) : []}
                channel={data.channel ?? ''}
                onReply={setReplyTo}
              />
            ),
          )}
          {key.missing && (
            <Text ta="center" size="xs" c="dimmed" py={4} data-testid="encryption-key-missing" data-type="system">
              {S.noKey}
            </Text>
          )}
          {shown.length === 0 && (
            <Text ta="center" c="dimmed" size="sm">
              {S.noMessages}
            </Text>
          )}
        </Stack>
      </div>
      {data.newerOut && (
        <Center>
          <Button size="compact-sm" variant="light" onClick={() => void jumpToLatest()}>
            {S.jumpLatest}
          </Button>
        </Center>
      )}
      <Text size="xs" c="dimmed" mih={18} data-testid="typing">
        {typing.names.length > 0 ? S.typing(typing.names) : ''}
      </Text>
      {info.data?.livechat_state === 'ended' ? (
        <Text ta="center" size="sm" c="dimmed" py="sm" data-testid="composer-closed">
          {LIVECHAT_STRINGS.endedNoSend}
        </Text>
      ) : windowClosed && !whatsapp ? (
        <MetaWindowClosed channel={data.channel ?? ''} />
      ) : windowClosed ? (
        <WhatsAppTemplateForm
          ticketId={ticketId}
          onSent={() => {
            stick.current = true;
          }}
        />
      ) : data.channel === 'FB_PAGE_POST' && postReply === 'private' ? (
        <Stack gap={6}>
          <PostReplyChoice mode={postReply} onChange={setPostReply} />
          <PrivateReplyForm
            ticketId={ticketId}
            onSent={() => {
              stick.current = true;
            }}
          />
        </Stack>
      ) : email ? (
        <EmailComposer
          ticketId={ticketId}
          me={me.username}
          replyTo={replyTo}
          onClearReply={() => setReplyTo(null)}
          onSent={() => {
            stick.current = true;
          }}
        />
      ) : (
        <>
          {data.channel === 'FB_PAGE_POST' && <PostReplyChoice mode={postReply} onChange={setPostReply} />}
          <Composer
            ticketId={ticketId}
            encryption={encryption}
            replyTo={replyTo}
            ticket={info.data}
            guidance={guided}
            repliedSince={(since) => othersRepliedSince(data.messages, me.username, since)}
            onClearReply={() => setReplyTo(null)}
            onSent={() => {
              stick.current = true;
            }}
          />
        </>
      )}
      <SendFailedModal />
    </Stack>
  );
}
