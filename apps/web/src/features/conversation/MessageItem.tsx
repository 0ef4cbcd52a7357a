import {
  ActionIcon,
  Anchor,
  Badge,
  Box,
  Button,
  Group,
  Menu,
  Paper,
  Popover,
  Stack,
  Text,
  Tooltip,
  UnstyledButton,
} from '@mantine/core';
import {
  CHANNEL_STRINGS,
  channelName,
  type DeliveryState,
  looksLikeEnvelope,
  MESSAGE_STRINGS,
  type Message,
  POST_CHANNELS,
} from '@parley/contracts';
import { IconDots, IconMoodSmile, IconPinFilled } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { ConversationData } from '../../lib/conversationData';
import { formatTime } from '../../lib/dates';
import { CUSTOMER_SENDER, customerName, useDisplayName } from '../../lib/people';
import { conversationKeys } from '../../lib/queryKeys';
import { useServices } from '../../lib/services';
import { toast } from '../../ui/toast';
import { conversationApi } from './api';
import { MessageBody } from './MessageBody';
import type { ShownMessage } from './model';
import { NoteForm, Notes } from './Notes';
import { outbox } from './outbox';
import { type SenderTarget, useConversationParts } from './parts';
import { MessageReading } from './Reading';
import { SealedText } from './SealedText';
import { REACTIONS, CONVERSATION_STRINGS as S } from './strings';

const fail = (e: unknown) => toast({ message: (e as Error).message, color: 'red' });
const time = (ms: number) => formatTime(ms);

/** MSG-06: the reactions under a message; hover names who gave each, a click gives or takes back mine. */
function Reactions({ m, me }: { m: Message; me: string }) {
  const entries = Object.entries(m.reactions_2);
  if (entries.length === 0) return null;
  return (
    <Group gap={4} mt={4}>
      {entries.map(([emoji, users]) => {
        const mine = users.includes(me);
        const text = m.reactions.find((r) => r.reaction === emoji)?.emoji_text ?? '';
        return (
          <Tooltip key={emoji} label={users.join(', ')} withArrow>
            <Badge
              component="button"
              variant={mine ? 'filled' : 'light'}
              color="gray"
              radius="sm"
              size="lg"
              style={{ cursor: 'pointer', textTransform: 'none' }}
              data-testid="message-reaction"
              title={users.join(', ')}
              onClick={() => conversationApi.react(m.id, emoji, text, mine).catch(fail)}
            >
              {emoji} {users.length}
            </Badge>
          </Tooltip>
        );
      })}
    </Group>
  );
}

/** The emoji picker of a message (a few emoji; MSG-17). */
function ReactionPicker({ m, me }: { m: Message; me: string }) {
  const [open, setOpen] = useState(false);
  return (
    <Popover opened={open} onChange={setOpen} position="top" withArrow>
      <Popover.Target>
        <ActionIcon variant="subtle" size="sm" aria-label={S.react} onClick={() => setOpen((o) => !o)}>
          <IconMoodSmile size={16} />
        </ActionIcon>
      </Popover.Target>
      <Popover.Dropdown p={4}>
        <Group gap={2}>
          {REACTIONS.map((r) => {
            const mine = (m.reactions_2[r.reaction] ?? []).includes(me);
            return (
              <ActionIcon
                key={r.reaction}
                variant={mine ? 'light' : 'subtle'}
                size="lg"
                aria-label={r.emoji_text}
                onClick={() => {
                  setOpen(false);
                  conversationApi.react(m.id, r.reaction, r.emoji_text, mine).catch(fail);
                }}
              >
                <span style={{ fontSize: 18 }}>{r.reaction}</span>
              </ActionIcon>
            );
          })}
        </Group>
      </Popover.Dropdown>
    </Popover>
  );
}

/**
 * A reply sent through the ticket's mailbox: "Sending…" until the SMTP server takes it, nothing once sent,
 * "Failed: <the server's words>" with Retry when it was refused.
 */
function EmailState({ m, align }: { m: Message; align: 'left' | 'right' }) {
  // The e-mail state a retry was asked from. The socket brings every change after it (sending, then sent or
  // failed again), and may bring them before the retry's own answer: so the answer never writes the state; it
  // only shows "Sending…" while nothing newer has come.
  const [retriedFrom, setRetriedFrom] = useState<Message['email'] | null>(null);
  const retrying = useMutation({
    mutationFn: (_from: Message['email']) => conversationApi.retryEmail(m.id),
    onSuccess: (_answer, from) => setRetriedFrom(from ?? null),
    onError: fail,
  });
  const busy = retrying.isPending;
  const state = retriedFrom !== null && retriedFrom === m.email ? 'sending' : m.email?.state;
  if (state === 'sending')
    return (
      <Text size="xs" c="dimmed" ta={align} data-testid="message-email-state" data-state="sending">
        {MESSAGE_STRINGS.emailSending}
      </Text>
    );
  if (state !== 'failed') return null;
  const retry = () => retrying.mutate(m.email);
  return (
    <Group gap={6} justify={align === 'right' ? 'flex-end' : 'flex-start'} wrap="nowrap">
      {/* Small text: a darker red in light (a plain red fails contrast at this size), a lighter one in dark. */}
      <Text
        size="xs"
        c="light-dark(var(--mantine-color-red-9), var(--mantine-color-red-4))"
        data-testid="message-email-state"
        data-state="failed"
      >
        {MESSAGE_STRINGS.emailFailed(m.email?.error ?? '')}
      </Text>
      <Button size="compact-xs" variant="light" loading={busy} onClick={retry} style={{ flexShrink: 0 }}>
        {MESSAGE_STRINGS.emailRetry}
      </Button>
    </Group>
  );
}

/** The words of a channel reply's delivery that is not a failure. */
const DELIVERY_WORDS: Record<Exclude<DeliveryState, 'failed'>, string> = {
  sending: CHANNEL_STRINGS.sending,
  sent: CHANNEL_STRINGS.sent,
  delivered: CHANNEL_STRINGS.delivered,
  read: CHANNEL_STRINGS.read,
};

/**
 * A reply on a messaging channel (WhatsApp, Telegram): Sending…, Sent, Delivered or Read under it, small and
 * dimmed; "Failed: <the provider's words>" with Retry when it was refused.
 */
function ChannelDelivery({ m, align }: { m: Message; align: 'left' | 'right' }) {
  // The delivery a retry was asked from. The socket brings every change after it (sending, then sent or failed
  // again), and may bring them before the retry's own answer: so the answer never writes the state; it only
  // shows "Sending…" while nothing newer has come (each `messageDelivery` puts a new object on the message).
  const [retriedFrom, setRetriedFrom] = useState<Message['delivery'] | null>(null);
  const retrying = useMutation({
    mutationFn: (_from: Message['delivery']) => conversationApi.retryDelivery(m.id),
    onSuccess: (_answer, from) => setRetriedFrom(from ?? null),
    onError: fail,
  });
  const busy = retrying.isPending;
  if (!m.delivery) return null;
  const state = retriedFrom !== null && retriedFrom === m.delivery ? 'sending' : m.delivery.state;
  if (state !== 'failed')
    return (
      <Text size="xs" c="dimmed" ta={align} data-testid="message-delivery-state" data-state={state}>
        {DELIVERY_WORDS[state]}
      </Text>
    );
  const retry = () => retrying.mutate(m.delivery);
  return (
    <Group gap={6} justify={align === 'right' ? 'flex-end' : 'flex-start'} wrap="nowrap" align="flex-start">
      {/* Small text: a darker red in light (a plain red fails contrast at this size), a lighter one in dark. */}
      <Text
        size="xs"
        c="light-dark(var(--mantine-color-red-9), var(--mantine-color-red-4))"
        style={{ overflowWrap: 'anywhere', minWidth: 0 }}
        data-testid="message-delivery-state"
        data-state="failed"
      >
        {CHANNEL_STRINGS.failed(m.delivery.error ?? '')}
      </Text>
      <Button
        size="compact-xs"
        variant="light"
        loading={busy}
        onClick={retry}
        style={{ flexShrink: 0 }}
        data-testid="message-delivery-retry"
      >
        {CHANNEL_STRINGS.retry}
      </Button>
    </Group>
  );
}

interface Props {
  m: ShownMessage;
  me: string;
  admin: boolean;
  seenBy: string[];
  /** The conversation's channel code, named beside a customer's message. */
  channel?: string;
  onReply(m: Message): void;
}

/** One message: sender, time, reply preview, body, translations, reactions, notes, status and actions. */
export function MessageItem({ m, me, admin, seenBy, channel = '', onReply }: Props) {
  const displayName = useDisplayName();
  /** The customer by name (never "visitor"); a person of the team by display name (never a bare username). */
  const nameOf = (sender: string, senderName = '') =>
    sender === CUSTOMER_SENDER
      ? customerName(senderName)
      : senderName && senderName !== sender
        ? senderName
        : displayName(sender);
  const [noting, setNoting] = useState(false);
  const [profile, setProfile] = useState<SenderTarget | null>(null);
  const { SenderProfile } = useConversationParts();
  const qc = useQueryClient();
  const services = useServices();
  /** MSG-49, MSG-53: translate into the browser's language; kept per language on the message. */
  const translate = async (target: Message) => {
    const lang = (navigator.language || 'en').split('-')[0]?.toLowerCase() ?? 'en';
    try {
      const r = await conversationApi.translate(target.ticketId, [{ id: target.id, message: target.message }], lang);
      if (r.result === 'not_configured') return fail(new Error(r.description));
      const text = r.data[0]?.translated ?? '';
      qc.setQueryData<ConversationData>(conversationKeys.one(target.ticketId), (d) =>
        d
          ? {
              ...d,
              messages: d.messages.map((x) =>
                x.id === target.id ? { ...x, translated_text: { ...x.translated_text, [lang]: text } } : x,
              ),
            }
          : d,
      );
    } catch (e) {
      fail(e);
    }
  };
  const stored = typeof m.id === 'number' ? (m as Message) : null;
  // The post a comment thread is under: its first message, shown as a card above the comments.
  if (m.sender === 'server' && POST_CHANNELS.includes(channel as never) && m.message.startsWith('Post: '))
    return <PostContext text={m.message} />;
  if (m.type === 'system' || m.sender === 'server')
    return (
      <Text ta="center" size="xs" c="dimmed" py={4} data-testid="message" data-id={m.id} data-type="system">
        {m.message} · {time(m.created_at)}
      </Text>
    );
  const own = m.sender === me;
  const translations = Object.entries(m.translated_text);
  return (
    <Box
      data-testid="message"
      data-id={m.id}
      data-status={m.sendStatus}
      style={{ display: 'flex', justifyContent: own ? 'flex-end' : 'flex-start' }}
    >
      <Stack gap={2} maw="78%" style={{ minWidth: 0 }}>
        <Group gap={6} justify={own ? 'flex-end' : 'flex-start'}>
          <UnstyledButton
            onClick={() => setProfile({ sender: m.sender, ticketId: m.ticketId, name: m.senderName })}
            data-testid="message-sender"
            aria-label={`${nameOf(m.sender, m.senderName)}: profile`}
          >
            <Text size="xs" fw={600}>
              {m.sender === 'translatebot' ? S.translation : nameOf(m.sender, m.senderName)}
            </Text>
          </UnstyledButton>
          {m.sender === CUSTOMER_SENDER && channel && (
            <Badge size="xs" variant="outline" color="gray" tt="none" data-testid="message-channel">
              {channelName(channel)}
            </Badge>
          )}
          {profile && <SenderProfile target={profile} onClose={() => setProfile(null)} />}
          <Text size="xs" c="dimmed">
            {time(m.created_at)}
          </Text>
          {m.pinned && <IconPinFilled size={12} aria-label={S.pinned} />}
          <MessageReading emotion_2={m.emotion_2} context={m.context} scam_results={m.scam_results} />
        </Group>
        <Paper
          p="xs"
          radius="md"
          bg={own ? 'var(--mantine-primary-color-light)' : 'var(--mantine-color-default-hover)'}
          style={{ opacity: m.sendStatus === 'sending' ? 0.7 : 1 }}
        >
          {m.reply && (
            <Box
              mb={4}
              pl={6}
              style={{ borderLeft: '3px solid var(--mantine-color-dimmed)' }}
              data-testid="message-reply-preview"
            >
              <Text size="xs" fw={600}>
                {nameOf(m.reply.sender)}
              </Text>
              {looksLikeEnvelope(m.reply.message) ? (
                <SealedText text={m.reply.message} compact />
              ) : (
                <Text size="xs" c="dimmed" lineClamp={2}>
                  {m.reply.message}
                </Text>
              )}
            </Box>
          )}
          <MessageBody m={m} />
          {translations.map(([lang, t]) => (
            <Text key={lang} size="xs" c="dimmed" mt={4}>
              [{lang}] {t}
            </Text>
          ))}
        </Paper>
        {m.sendStatus === 'sending' && (
          <Text size="xs" c="dimmed" ta={own ? 'right' : 'left'} data-testid="message-sending">
            {'held' in m && m.held ? S.heldBehindFailed : S.sending}
          </Text>
        )}
        {m.sendStatus === 'failed' && (
          <Group gap={6} justify="flex-end">
            <Text size="xs" c="red">
              {S.failed}
            </Text>
            <Button size="compact-xs" variant="light" onClick={() => outbox.retry(String(m.id))}>
              {S.retry}
            </Button>
            <Button size="compact-xs" variant="subtle" color="gray" onClick={() => outbox.remove(String(m.id))}>
              {S.discard}
            </Button>
          </Group>
        )}
        {stored && <EmailState m={stored} align={own ? 'right' : 'left'} />}
        {stored && <ChannelDelivery m={stored} align={own ? 'right' : 'left'} />}
        {stored && (
          <>
            <Group gap={2} justify={own ? 'flex-end' : 'flex-start'}>
              <ReactionPicker m={stored} me={me} />
              <Menu position="bottom-end" withinPortal>
                <Menu.Target>
                  <ActionIcon variant="subtle" size="sm" aria-label={S.actions}>
                    <IconDots size={16} />
                  </ActionIcon>
                </Menu.Target>
                <Menu.Dropdown>
                  <Menu.Item onClick={() => onReply(stored)}>{S.reply}</Menu.Item>
                  <Menu.Item onClick={() => setNoting(true)}>{S.addNote}</Menu.Item>
                  {services?.translate && <Menu.Item onClick={() => void translate(stored)}>{S.translate}</Menu.Item>}
                  <Menu.Item onClick={() => conversationApi.pin(stored.id, !stored.pinned).catch(fail)}>
                    {stored.pinned ? S.unpin : S.pin}
                  </Menu.Item>
                  {(own || admin) && (
                    <Menu.Item
                      color="red"
                      onClick={() => conversationApi.remove(stored.ticketId, stored.id).catch(fail)}
                    >
                      {S.delete}
                    </Menu.Item>
                  )}
                </Menu.Dropdown>
              </Menu>
            </Group>
            <Reactions m={stored} me={me} />
            <Notes notes={stored.notes} me={me} />
            {noting && (
              <NoteForm
                initial=""
                onSave={(t) => conversationApi.addNote(stored.id, t)}
                onDone={() => setNoting(false)}
              />
            )}
            {seenBy.length > 0 && (
              <Text size="xs" c="dimmed" ta="right" data-testid="message-seen">
                {S.seenBy(seenBy.map((u) => displayName(u)))}
              </Text>
            )}
          </>
        )}
      </Stack>
    </Box>
  );
}

/** The post above a comment thread: its words and its link, which opens the post on the network. */
function PostContext({ text }: { text: string }) {
  const lines = text.slice('Post: '.length).split('\n');
  const link = lines.at(-1)?.startsWith('https://') ? lines.pop() : undefined;
  return (
    <Paper withBorder p="sm" radius="md" data-testid="post-context">
      <Text size="xs" c="dimmed" fw={600}>
        {S.postContext}
      </Text>
      <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
        {lines.join('\n')}
      </Text>
      {link && (
        <Anchor href={link} target="_blank" rel="noreferrer noopener" size="xs" data-testid="post-context-link">
          {S.openPost}
        </Anchor>
      )}
    </Paper>
  );
}
