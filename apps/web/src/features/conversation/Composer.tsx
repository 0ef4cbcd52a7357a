import { ActionIcon, Button, FileButton, Group, Progress, Stack, Text, Textarea } from '@mantine/core';
import { isLiveChatChannel, type Message } from '@parley/contracts';
import { IconBook, IconPaperclip, IconSend } from '@tabler/icons-react';
import { useRef, useState } from 'react';
import { useMe } from '../../lib/session';
import { toast } from '../../ui/toast';
import { upload } from './api';
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
  onClearReply(): void;
  onSent(): void;
}

/**
 * The composer: Enter sends (Shift+Enter adds a line), files upload at once with a percent (MSG-36) and go
 * out as one message each. Everything goes through the outbox, so it is queued when the socket is down (and
 * failed at once on an encrypted ticket with no key on this browser, MSG-12).
 */
export function Composer({ ticketId, encryption, replyTo, ticket, onClearReply, onSent }: Props) {
  const { accountId, name, username } = useMe();
  const [text, setText] = useState('');
  const input = useRef<HTMLTextAreaElement>(null);
  const { useReplyPicker, KnowledgePopup } = useConversationParts();
  const [kbOpen, setKbOpen] = useState(false);
  const canned = useReplyPicker({ text, setText, ticket, agent: { name, username }, input });
  const [percent, setPercent] = useState<number | null>(null);
  const typing = useLocalTyping(ticketId);
  const reply = replyTo
    ? { reply_id: replyTo.id, reply: { sender: replyTo.senderName || replyTo.sender, message: replyTo.message } }
    : { reply_id: null, reply: null };

  const send = () => {
    const message = text.trim();
    if (!message) return;
    outbox.add({ ticket_id: ticketId, message, type: 'text', files: [], fileInfo: [], ...reply });
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

  return (
    <Stack gap={4}>
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
            setText(text.trim() ? `${text.trimEnd()}\n\n${inserted}` : inserted);
            setKbOpen(false);
            input.current?.focus();
          }}
        />
      )}
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
          placeholder={S.placeholder}
          value={text}
          autosize
          minRows={1}
          maxRows={6}
          style={{ flex: 1 }}
          data-testid="composer-input"
          ref={input}
          onChange={(e) => {
            setText(e.currentTarget.value);
            canned.onCaret(e.currentTarget.selectionStart);
            typing.keystroke();
          }}
          onSelect={(e) => canned.onCaret(e.currentTarget.selectionStart)}
          onKeyDown={(e) => {
            if (canned.onKeyDown(e)) return;
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              send();
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
        <Button onClick={send} leftSection={<IconSend size={16} />} disabled={text.trim() === ''}>
          {S.send}
        </Button>
      </Group>
    </Stack>
  );
}
