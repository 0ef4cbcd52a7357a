import { Group, Paper, Text } from '@mantine/core';
import { AI_STRINGS as A, type AiHintAnswer, wantsAiHint } from '@parley/contracts';
import { IconSparkles } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import type { ConversationData } from '../../lib/conversationData';
import { api } from '../../lib/http';
import { conversationKeys } from '../../lib/queryKeys';
import { useServices } from '../../lib/services';
import { useMe } from '../../lib/session';

/** The conversation the pane loaded for a ticket, as it changes (read from the query cache only). */
function useLoadedConversation(ticketId: number): ConversationData | undefined {
  const qc = useQueryClient();
  const key = conversationKeys.one(ticketId);
  return useSyncExternalStore(
    (changed) =>
      qc.getQueryCache().subscribe((e) => {
        if (e.query.queryKey[0] === key[0] && e.query.queryKey[1] === key[1]) changed();
      }),
    () => qc.getQueryData<ConversationData>(key),
  );
}

/**
 * AI-03, AI-06: the hint for the newest message of the open live chat that AI-03 allows (not the agent's
 * own, not the translation bot's), asked once per message. Without a provider nothing is asked and the
 * panel shows nothing (the installation's services say so); a failing provider shows one quiet line.
 */
export function AiHints({ ticketId, channel }: { ticketId: number; channel: string }) {
  const me = useMe();
  const configured = useServices()?.ai_hints === true;
  const conversation = useLoadedConversation(ticketId);
  const target = me.username
    ? conversation?.messages.filter((m) => m.id > 0 && wantsAiHint(m, me.username)).at(-1)
    : undefined;
  const hint = useQuery({
    queryKey: conversationKeys.aiHint(target?.id ?? 0),
    enabled: !!target && configured,
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    queryFn: async () => {
      const q = new URLSearchParams({
        text: target!.message,
        messageId: String(target!.id),
        channel,
        translation: Object.values(target!.translated_text)[0] ?? '',
      });
      const r = await api<AiHintAnswer>('GET', `/api/wauchat/recommendation?${q}`);
      return r.result === 'success' ? r.data : null;
    },
  });
  if (!target || !configured || hint.isPending || hint.data === null) return null;
  return (
    <Paper withBorder p="xs" mx="md" mb="xs" data-testid="ai-hint" aria-label={A.title}>
      <Group gap="xs" wrap="nowrap" align="flex-start">
        <IconSparkles size={16} aria-hidden style={{ flexShrink: 0, marginTop: 2 }} />
        {hint.isError ? (
          <Text size="sm" c="dimmed">
            {A.failed}
          </Text>
        ) : (
          <div style={{ minWidth: 0 }}>
            <Text size="xs" c="dimmed">
              {A.title} · {A.confidence(hint.data.confidence)}
            </Text>
            <Text size="sm" data-testid="ai-hint-text">
              {hint.data.recommendation}
            </Text>
          </div>
        )}
      </Group>
    </Paper>
  );
}
