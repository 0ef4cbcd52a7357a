import {
  ActionIcon,
  Badge,
  Button,
  FileButton,
  Group,
  Progress,
  Stack,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { type Message, newQueueId, type ReplyAnswer } from '@parley/contracts';
import { IconMail, IconPaperclip, IconX } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useTicketInfo } from '../../lib/api/ticketInfo';
import { useMe } from '../../lib/session';
import { toast } from '../../ui/toast';
import { sendReply } from './api';
import { replyFields, scheduledEmail } from './emailDraft';
import { missingKeyError } from './encryptionKey';
import { addStored } from './live';
import { asMessage } from './model';
import { useConversationParts } from './parts';
import { ReplyPreview } from './ReplyPreview';
import { ScheduleButton, ScheduledList } from './ScheduleMessage';
import { CONVERSATION_STRINGS as S } from './strings';

interface Props {
  ticketId: number;
  me: string;
  replyTo: Message | null;
  onClearReply(): void;
  onSent(): void;
}

/**
 * MSG-25, MSG-26, MSG-30, MSG-31: the reply composer of an e-mail ticket (EMAIL, GRAPH_EMAIL). "To" starts
 * with the customer's address, "Subject" with "Re: " and the ticket's title. The addresses are checked
 * before anything is sent ("Please check the email address. {address}"); files go with the reply as
 * `attachment[]`, with the upload's percent. A failed reply shows an alert with the server's raw response
 * and keeps the draft (a retry sends the same `queue-` id). Typing `/` offers the canned replies, as in
 * the chat composer. Sent only while online: an e-mail is not queued.
 * On an encrypted ticket with no key on this browser nothing is sent (the key text shows in place of the
 * server's answer, MSG-12) and files are refused silently (CRYPT-05).
 */
export function EmailComposer({ ticketId, me, replyTo, onClearReply, onSent }: Props) {
  const qc = useQueryClient();
  const info = useTicketInfo(ticketId).data;
  const { accountId, name, username } = useMe();
  const noKey = () => missingKeyError(accountId, info?.encryption_method ?? '');
  const [to, setTo] = useState('');
  const [cc, setCc] = useState('');
  const [subject, setSubject] = useState('');
  const [body, setBody] = useState('');
  const bodyInput = useRef<HTMLTextAreaElement>(null);
  const { useReplyPicker } = useConversationParts();
  const canned = useReplyPicker({
    text: body,
    setText: setBody,
    ticket: info,
    agent: { name, username },
    input: bodyInput,
  });
  const [files, setFiles] = useState<File[]>([]);
  const [clientId, setClientId] = useState(newQueueId);
  const [error, setError] = useState('');
  const [percent, setPercent] = useState<number | null>(null);

  // The customer and the subject, once the ticket is known (the agent may change both).
  const customer = info?.email ?? '';
  const title = info?.title ?? '';
  useEffect(() => setTo((v) => v || customer), [customer]);
  useEffect(() => setSubject((v) => v || (title ? `Re: ${title}` : '')), [title]);

  const send = async () => {
    if (body.trim() === '' && files.length === 0) return;
    const refused = noKey();
    if (refused !== undefined) {
      setError(refused);
      return;
    }
    const r = replyFields({ ticketId, to, cc, subject, body, clientId, replyId: replyTo?.id ?? null });
    if ('error' in r) {
      setError(r.error);
      return;
    }
    setError('');
    setPercent(0);
    try {
      const answer = await sendReply(r.fields, files, setPercent);
      if (answer.status < 200 || answer.status >= 300) {
        // MSG-31: the raw response, as the server gave it.
        window.alert(answer.text || `HTTP ${answer.status}`);
        return;
      }
      const a = answer.body as ReplyAnswer;
      addStored(qc, asMessage(a.data, me));
      if (a.mail === 'not_configured') toast({ message: a.description ?? S.mailNotConfigured, color: 'yellow' });
      setBody('');
      setFiles([]);
      setClientId(newQueueId());
      onClearReply();
      onSent();
    } catch {
      window.alert(S.socketDown);
    } finally {
      setPercent(null);
    }
  };

  return (
    <Stack gap={6} data-testid="email-composer">
      <Group gap={6}>
        <IconMail size={16} aria-hidden />
        <Text size="sm" fw={600}>
          {S.emailReply}
        </Text>
      </Group>
      <Group gap="xs" grow wrap="wrap">
        <TextInput
          label={S.emailTo}
          size="xs"
          value={to}
          onChange={(e) => setTo(e.currentTarget.value)}
          placeholder={S.emailToHint}
          data-testid="email-to"
        />
        <TextInput
          label={S.emailCc}
          size="xs"
          value={cc}
          onChange={(e) => setCc(e.currentTarget.value)}
          placeholder={S.emailCcHint}
          data-testid="email-cc"
        />
      </Group>
      <TextInput
        label={S.emailSubject}
        size="xs"
        value={subject}
        onChange={(e) => setSubject(e.currentTarget.value)}
        data-testid="email-subject"
      />
      <ScheduledList ticketId={ticketId} />
      {replyTo && <ReplyPreview replyTo={replyTo} onClear={onClearReply} />}
      {canned.picker}
      <Textarea
        aria-label={S.emailBody}
        placeholder={S.emailBodyHint}
        value={body}
        autosize
        minRows={3}
        maxRows={10}
        ref={bodyInput}
        onChange={(e) => {
          setBody(e.currentTarget.value);
          canned.onCaret(e.currentTarget.selectionStart);
        }}
        onSelect={(e) => canned.onCaret(e.currentTarget.selectionStart)}
        onKeyDown={(e) => {
          canned.onKeyDown(e);
        }}
        data-testid="email-body"
      />
      {files.length > 0 && (
        <Group gap={4} data-testid="email-files">
          {files.map((f, i) => (
            <Badge
              key={`${f.name}-${i}`}
              variant="light"
              rightSection={
                <ActionIcon
                  size="xs"
                  variant="transparent"
                  aria-label={S.removeFile(f.name)}
                  onClick={() => setFiles(files.filter((_, j) => j !== i))}
                >
                  <IconX size={10} />
                </ActionIcon>
              }
            >
              {f.name}
            </Badge>
          ))}
        </Group>
      )}
      {error && (
        <Text size="sm" c="red" role="alert" data-testid="email-error">
          {error}
        </Text>
      )}
      {percent !== null && (
        <Group gap="xs" data-testid="upload-progress">
          <Progress value={percent} style={{ flex: 1 }} aria-label={S.uploading(percent)} />
          <Text size="xs">{S.uploading(percent)}</Text>
        </Group>
      )}
      <Group justify="space-between">
        <FileButton onChange={(f) => noKey() === undefined && setFiles([...files, ...f])} multiple>
          {(props) => (
            <Button {...props} variant="default" size="xs" leftSection={<IconPaperclip size={14} />}>
              {S.attach}
            </Button>
          )}
        </FileButton>
        <Group gap="xs" wrap="nowrap">
          {/* Files cannot wait: a reply with files goes now. */}
          <ScheduleButton
            ticketId={ticketId}
            text={body}
            email={() => scheduledEmail({ to, cc, subject })}
            disabled={files.length > 0 || percent !== null}
            onScheduled={() => {
              setBody('');
              onClearReply();
            }}
          />
          <Button
            size="sm"
            leftSection={<IconMail size={16} />}
            loading={percent !== null}
            disabled={body.trim() === '' && files.length === 0}
            onClick={() => void send()}
            data-testid="email-send"
          >
            {S.sendEmail}
          </Button>
        </Group>
      </Group>
    </Stack>
  );
}
