import { Group, Paper, Text } from '@mantine/core';
import { AI_STRINGS as A, AI_NOT_CONFIGURED, type AiHint, wantsAiHint } from '@parley/contracts';
import { IconSparkles } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import { api, HttpError } from '../../lib/http';
import { convKey } from '../conversation/live';
import type { ConversationData } from '../conversation/model';
import { useMe } from '../conversation/useConversation';

/** Set once the server says no provider is configured: no more asking in this page's life. */
let notConfigured = false;

/** The conversation the pane loaded for a ticket, as it changes (read from the query cache only). */
function useLoadedConversation(ticketId: number): ConversationData | undefined {
  const qc = useQueryClient();
  const key = convKey(ticketId);
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
 * own, not the translation bot's), asked once per message. Without a provider the server answers
 * "not configured" and the panel shows nothing (no error notice); a failing provider shows one quiet line.
 */
export function AiHints({ ticketId, channel }: { ticketId: number; channel: string }) {
  const me = useMe();
  const conversation = useLoadedConversation(ticketId);
  const target = me.username
    ? conversation?.messages.filter((m) => m.id > 0 && wantsAiHint(m, me.username)).at(-1)
    : undefined;
  const hint = useQuery({
    queryKey: ['ai-hint', target?.id ?? 0],
    enabled: !!target && !notConfigured,
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    queryFn: async () => {
      const q = new URLSearchParams({
        text: target!.message,
        messageId: String(target!.id),
        channel,
        translation: Object.values(target!.translated_text)[0] ?? '',
      });
      try {
        return (await api<{ data: AiHint }>('GET', `/api/wauchat/recommendation?${q}`)).data;
      } catch (err) {
        if (err instanceof HttpError && (err.body as { code?: string } | null)?.code === AI_NOT_CONFIGURED) {
          notConfigured = true;
          return null;
        }
        throw err;
      }
    },
  });
  if (!target || notConfigured || hint.isPending || hint.data === null) return null;
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
