import { ActionIcon, Alert, Button, FileButton, Group, Progress, Stack, Switch, Text, Textarea } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { isLiveChatChannel, type Message } from '@parley/contracts';
import { IconBook, IconPaperclip, IconSend } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { ticketKeys } from '../../lib/queryKeys';
import { useServices } from '../../lib/services';
import { useMe } from '../../lib/session';
import { toast } from '../../ui/toast';
import { AiGuidance } from './AiGuidance';
import { conversationApi, upload } from './api';
import { type EncryptionMethod, missingKeyError } from './encryptionKey';
import { outbox } from './outbox';
import { type ReplyTicket, useConversationParts } from './parts';
import { ReplyPreview } from './ReplyPreview';
import { ScheduleButton, ScheduledList } from './ScheduleMessage';
import { CONVERSATION_STRINGS as S } from './strings';
import { useLocalTyping } from './useConversation';

interface Props {
  ticketId: number;
  /** The ticket's encryption method ('' when plain): with no key here an upload is refused (CRYPT-05). */
  encryption: EncryptionMethod;
  replyTo: Message | null;
  /** The open ticket, for the canned replies' variables and channel. */
  ticket?: ReplyTicket;
  /** AI-01: the customer's message to advise on (none: no guidance shown). */
  guidance?: { message: Message; channel: string };
  /** The other agents who replied after a time (ms): the reply written meanwhile is held for a look first. */
  repliedSince?(since: number): string[];
  onClearReply(): void;
  onSent(): void;
}

/**
 * The composer: Enter sends (Shift+Enter adds a line), files upload at once with a percent (MSG-36) and go
 * out as one message each. Everything goes through the outbox, so it is queued when the socket is down (and
 * failed at once on an encrypted ticket with no key on this browser, MSG-12).
 */
export function Composer({
  ticketId,
  encryption,
  replyTo,
  ticket,
  guidance,
  repliedSince,
  onClearReply,
  onSent,
}: Props) {
  const { accountId, name, username } = useMe();
  const [text, setText] = useState('');
  // Mantine's sm breakpoint (48em), where the send button becomes its icon alone.
  const phone = useMediaQuery('(max-width: 48em)') ?? false;
  const input = useRef<HTMLTextAreaElement>(null);
  const { useReplyPicker, KnowledgePopup } = useConversationParts();
  const [kbOpen, setKbOpen] = useState(false);
  const canned = useReplyPicker({ text, setText, ticket, agent: { name, username }, input });
  const [percent, setPercent] = useState<number | null>(null);
  const typing = useLocalTyping(ticketId);
  const reply = replyTo
    ? { reply_id: replyTo.id, reply: { sender: replyTo.senderName || replyTo.sender, message: replyTo.message } }
    : { reply_id: null, reply: null };

  // When this reply began to be written: a colleague's reply after it is worth a look before sending.
  const draftSince = useRef(0);
  const [collision, setCollision] = useState<string[]>([]);
  const translation = useReplyTranslation(ticketId, ticket?.language ?? '', guidance?.message.id);
  const send = async (checked = false) => {
    const message = text.trim();
    if (!message || translation.busy) return;
    const others = checked || !draftSince.current ? [] : (repliedSince?.(draftSince.current) ?? []);
    if (others.length > 0) {
      setCollision(others);
      return;
    }
    setCollision([]);
    // Translated: the customer's language goes out, the agent's words stay on the message for the team.
    // CRYPT-11: an encrypted conversation's text never goes to a translator.
    const translating = translation.on && encryption === '';
    const translated = translating ? await translation.translate(message) : null;
    if (translating && translated === null) return;
    draftSince.current = 0;
    outbox.add({
      ticket_id: ticketId,
      message: translated ?? message,
      type: 'text',
      files: [],
      fileInfo: [],
      ...reply,
      ...(translated !== null ? { original: { lang: translation.mine, text: message } } : {}),
      // Encrypted when it leaves (live.ts), with the key on this browser at that moment.
      ...(encryption !== '' ? { encryption } : {}),
    });
    setText('');
    typing.stop();
    onClearReply();
    onSent();
  };

  const attach = async (files: File[]) => {
    if (files.length === 0) return;
    // CRYPT-05: an encrypted ticket with no key on this browser: refused silently, nothing is uploaded.
    if (missingKeyError(accountId, encryption) !== undefined) return;
    setPercent(0);
    try {
      const r = await upload(ticketId, files, setPercent);
      r.file.forEach((file, i) => {
        const fileType = r.fileType[i] ?? 'application/octet-stream';
        const fileName = r.fileName[i] ?? 'file';
        outbox.add({
          ticket_id: ticketId,
          message: fileName,
          type: fileType.startsWith('image/') ? 'image' : fileType,
          files: [file],
          fileInfo: [{ file, fileName, fileType, size: r.size[i] ?? 0, thumb: r.thumb[i] ?? null }],
          ...(i === 0 ? reply : { reply_id: null, reply: null }),
        });
      });
      onClearReply();
      onSent();
    } catch (e) {
      toast({ message: (e as Error).message, color: 'red' });
    } finally {
      setPercent(null);
    }
  };

  const insert = (inserted: string) => {
    setText(text.trim() ? `${text.trimEnd()}\n\n${inserted}` : inserted);
    input.current?.focus();
  };

  return (
    <Stack gap={4}>
      {collision.length > 0 && (
        <Alert color="yellow" py={6} data-testid="reply-collision">
          <Group justify="space-between" gap="xs">
            <Text size="sm">{S.repliedMeanwhile(collision)}</Text>
            <Group gap="xs">
              <Button
                size="compact-sm"
                variant="default"
                onClick={() => {
                  // Read it first: the warning goes; the next send counts from now.
                  setCollision([]);
                  draftSince.current = Date.now();
                }}
              >
                {S.readFirst}
              </Button>
              <Button size="compact-sm" onClick={() => void send(true)} data-testid="reply-collision-send">
                {S.sendAnyway}
              </Button>
            </Group>
          </Group>
        </Alert>
      )}
      {guidance && <AiGuidance message={guidance.message} channel={guidance.channel} onInsert={insert} />}
      <ScheduledList ticketId={ticketId} />
      {replyTo && <ReplyPreview replyTo={replyTo} onClear={onClearReply} />}
      {percent !== null && (
        <Group gap="xs" data-testid="upload-progress">
          <Progress value={percent} style={{ flex: 1 }} aria-label={S.uploading(percent)} />
          <Text size="xs">{S.uploading(percent)}</Text>
        </Group>
      )}
      {canned.picker}
      {kbOpen && (
        <KnowledgePopup
          onClose={() => setKbOpen(false)}
          onInsert={(inserted) => {
            insert(inserted);
            setKbOpen(false);
          }}
        />
      )}
      {translation.offer}
      <Group gap="xs" align="flex-end" wrap="nowrap">
        <FileButton onChange={(f) => void attach(f)} multiple>
          {(props) => (
            <ActionIcon {...props} variant="default" size="lg" aria-label={S.attach} disabled={percent !== null}>
              <IconPaperclip size={18} />
            </ActionIcon>
          )}
        </FileButton>
        <ActionIcon variant="default" size="lg" aria-label={S.knowledgeBase} onClick={() => setKbOpen(true)}>
          <IconBook size={18} />
        </ActionIcon>
        <Textarea
          aria-label="Message"
          placeholder={phone ? S.placeholderPhone : S.placeholder}
          value={text}
          autosize
          minRows={1}
          maxRows={6}
          style={{ flex: 1 }}
          data-testid="composer-input"
          ref={input}
          onChange={(e) => {
            const value = e.currentTarget.value;
            if (!value.trim()) draftSince.current = 0;
            else if (!draftSince.current) draftSince.current = Date.now();
            setText(value);
            canned.onCaret(e.currentTarget.selectionStart);
            typing.keystroke();
          }}
          onSelect={(e) => canned.onCaret(e.currentTarget.selectionStart)}
          onKeyDown={(e) => {
            if (canned.onKeyDown(e)) return;
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              void send();
            }
          }}
        />
        {ticket && !isLiveChatChannel(ticket.channel) && (
          <ScheduleButton
            ticketId={ticketId}
            text={text}
            onScheduled={() => {
              setText('');
              typing.stop();
            }}
          />
        )}
        {/* On a phone the send button is its icon alone, so the message box keeps most of the row. */}
        <Button
          visibleFrom="sm"
          onClick={() => void send()}
          leftSection={<IconSend size={16} />}
          disabled={text.trim() === '' || translation.busy}
        >
          {S.send}
        </Button>
        <ActionIcon
          hiddenFrom="sm"
          size="lg"
          onClick={() => void send()}
          aria-label={S.send}
          disabled={text.trim() === '' || translation.busy}
          data-testid="composer-send-phone"
        >
          <IconSend size={18} />
        </ActionIcon>
      </Group>
    </Stack>
  );
}

/** The name of a language code in the browser's language ("es" -> "Spanish"); the code when unknown. */
function languageName(code: string): string {
  try {
    return new Intl.DisplayNames([navigator.language || 'en'], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/**
 * MSG-49, MSG-53, "translate my reply": when the customer's language (the ticket's) is not the agent's (the
 * browser's), a switch sends the reply in the customer's language, translated by the account's translator;
 * what the agent wrote is kept on the message. Offered only when the account has a translator
 * (`/api/services`, asked once); otherwise one line says so, and nothing is asked of the server.
 */
function useReplyTranslation(ticketId: number, customer: string, customerMessageId?: number) {
  const services = useServices();
  const qc = useQueryClient();
  // The customer's language is read from their message once it is stored (no event says so): while it is
  // unknown, a new customer message asks for the ticket again a moment later.
  useEffect(() => {
    if (customer || customerMessageId === undefined) return;
    const t = setTimeout(() => void qc.invalidateQueries({ queryKey: ticketKeys.info(ticketId) }), 1_500);
    return () => clearTimeout(t);
  }, [customer, customerMessageId, ticketId, qc]);
  const mine = (navigator.language || 'en').split('-')[0]?.toLowerCase() || 'en';
  const differs = customer !== '' && customer.split('-')[0]?.toLowerCase() !== mine;
  const [want, setWant] = useState(false);
  const [busy, setBusy] = useState(false);
  const available = differs && services?.translate === true;
  const on = available && want;
  const translate = async (message: string): Promise<string | null> => {
    setBusy(true);
    try {
      const r = await conversationApi.translate(ticketId, [{ id: 0, message }], customer, mine);
      if (r.result !== 'success') {
        toast({ message: r.description, color: 'red' });
        return null;
      }
      return r.data[0]?.translated ?? null;
    } catch (e) {
      toast({ message: (e as Error).message, color: 'red' });
      return null;
    } finally {
      setBusy(false);
    }
  };
  const offer = !differs ? null : available ? (
    <Group gap="xs">
      <Switch
        size="xs"
        checked={want}
        onChange={(e) => setWant(e.currentTarget.checked)}
        label={S.translateReply(languageName(customer), languageName(mine))}
        data-testid="translate-reply"
      />
      {busy && (
        <Text size="xs" c="dimmed">
          {S.translating}
        </Text>
      )}
    </Group>
  ) : services ? (
    <Text size="xs" c="dimmed" data-testid="translate-reply-off">
      {S.translateReplyOff(languageName(customer))}
    </Text>
  ) : null;
  return { on, busy, mine, translate, offer };
}
