import { ActionIcon, Box, Group, Text } from '@mantine/core';
import type { Message } from '@parley/contracts';
import { IconX } from '@tabler/icons-react';
import { CONVERSATION_STRINGS as S } from './strings';

/** MSG-05: the message a composer replies to, above it, with a way to cancel the reply. */
export function ReplyPreview({ replyTo, onClear }: { replyTo: Message; onClear(): void }) {
  return (
    <Group gap="xs" wrap="nowrap" data-testid="composer-reply">
      <Box pl={6} style={{ borderLeft: '3px solid var(--mantine-primary-color-filled)', flex: 1, minWidth: 0 }}>
        <Text size="xs" fw={600}>
          {S.replyingTo(replyTo.senderName || replyTo.sender)}
        </Text>
        <Text size="xs" c="dimmed" truncate>
          {replyTo.message}
        </Text>
      </Box>
      <ActionIcon variant="subtle" aria-label={S.cancelReply} onClick={onClear}>
        <IconX size={14} />
      </ActionIcon>
    </Group>
  );
}
