import { Button, Group, Paper, SegmentedControl, Stack, Text, Textarea } from '@mantine/core';
import { CHANNEL_STRINGS } from '@parley/contracts';
import { useState } from 'react';
import { useWrite } from '../../lib/useWrite';
import { toast } from '../../ui/toast';
import { conversationApi } from './api';
import { CONVERSATION_STRINGS as S } from './strings';

export type PostReplyMode = 'public' | 'private';

/**
 * A Facebook post's comments: whether the reply goes under the post (the usual composer, public) or to the
 * latest commenter by Messenger (a private reply, this small form).
 */
export function PostReplyChoice({ mode, onChange }: { mode: PostReplyMode; onChange(m: PostReplyMode): void }) {
  return (
    <SegmentedControl
      size="xs"
      fullWidth
      aria-label={S.replyWhere}
      value={mode}
      onChange={(v) => onChange(v as PostReplyMode)}
      data={[
        { value: 'public', label: CHANNEL_STRINGS.replyPublicly },
        { value: 'private', label: CHANNEL_STRINGS.replyPrivately },
      ]}
      data-testid="post-reply-mode"
    />
  );
}

/** The private reply: the server stores it as the agent's message and sends it by Messenger. */
export function PrivateReplyForm({ ticketId, onSent }: { ticketId: number; onSent(): void }) {
  const [message, setMessage] = useState('');
  const { run, busy, error } = useWrite();
  const send = async () => {
    if (await run(() => conversationApi.privateReply({ ticketId, message: message.trim() }))) {
      toast({ message: S.privateReplySent });
      setMessage('');
      onSent();
    }
  };
  return (
    <Paper withBorder p="sm" data-testid="private-reply">
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <Stack gap="xs">
          <Textarea
            aria-label={CHANNEL_STRINGS.replyPrivately}
            placeholder={S.privateReplyPlaceholder}
            autosize
            minRows={2}
            maxRows={6}
            value={message}
            onChange={(e) => setMessage(e.currentTarget.value)}
            data-testid="private-reply-text"
          />
          <Group justify="space-between" gap="xs" wrap="nowrap" align="flex-start">
            <Text size="xs" c="dimmed">
              {CHANNEL_STRINGS.replyPrivatelyHint}
            </Text>
            <Button type="submit" loading={busy} data-testid="private-reply-send" style={{ flexShrink: 0 }}>
              {S.privateReplySend}
            </Button>
          </Group>
          {error && (
            <Text
              size="sm"
              c="light-dark(var(--mantine-color-red-9), var(--mantine-color-red-4))"
              role="alert"
              data-testid="private-reply-error"
            >
              {error}
            </Text>
          )}
        </Stack>
      </form>
    </Paper>
  );
}
