import { ActionIcon, Anchor, Badge, Button, Collapse, Group, List, Paper, Stack, Text } from '@mantine/core';
import {
  AI_STRINGS as A,
  type AiCue,
  type AiFeedbackBody,
  type AiHintAnswer,
  AI_GUIDANCE_STRINGS as G,
  type Message,
  type TicketRecommendation,
} from '@parley/contracts';
import { IconAlertTriangle, IconSparkles, IconX } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../lib/http';
import { conversationKeys } from '../../lib/queryKeys';
import { useServices } from '../../lib/services';

const ask = (m: Message, channel: string) => new URLSearchParams({ text: m.message, messageId: String(m.id), channel });

/**
 * AI-01, AI-03, AI-06..09, AI-15: guidance on the customer's newest message, above the reply box: the next
 * best action with its engine and confidence, scam and sales signals, the writing style, the topic, and a
 * "what to say" answer that goes into the reply with one click. Every answer can show why (the cues), and a
 * use or a dismissal is recorded so later answers rank better. Asked once per message; the caller decides
 * which message (AI-03: never the agent's own or the translation bot's).
 */
export function AiGuidance({
  message,
  channel,
  onInsert,
}: {
  message: Message;
  channel: string;
  onInsert(text: string): void;
}) {
  const on = useServices()?.ai_hints === true;
  const [why, setWhy] = useState(false);
  const [dismissed, setDismissed] = useState<number | null>(null);
  const hint = useQuery({
    queryKey: conversationKeys.aiHint(message.id),
    enabled: on,
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    queryFn: async () => {
      const q = ask(message, channel);
      q.set('translation', Object.values(message.translated_text)[0] ?? '');
      const r = await api<AiHintAnswer>('GET', `/api/wauchat/recommendation?${q}`);
      return r.result === 'success' ? r.data : null;
    },
  });
  const rec = useQuery({
    queryKey: conversationKeys.aiRecommendation(message.id),
    enabled: on,
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    queryFn: () => api<TicketRecommendation>('GET', `/api/wauchat/ticket_recommendation?${ask(message, channel)}`),
  });
  if (!on || hint.isPending || hint.data === null) return null;
  if (hint.isError)
    return (
      <Paper withBorder p="xs" data-testid="ai-hint" aria-label={A.title}>
        <Text size="sm" c="dimmed">
          {A.failed}
        </Text>
      </Paper>
    );
  const h = hint.data;
  const r = rec.data;
  const a = h.analysis ?? r?.results;
  const say = r?.what_to_say && dismissed !== message.id ? r.what_to_say : null;
  const feedback = (body: Omit<AiFeedbackBody, 'messageId'>) =>
    void api('POST', '/api/wauchat/feedback', { messageId: message.id, ...body }).catch(() => {});
  const cues: AiCue[] = [
    ...h.cues,
    ...(a?.scam.value ? a.scam.cues : []),
    ...(a?.sales.value ? a.sales.cues : []),
    ...(a?.personality.value ? a.personality.cues : []),
    ...(r?.classification.status === 'ok' ? r.classification.cues : []),
    ...(say ? say.cues : []),
  ];
  return (
    <Paper withBorder p="xs" data-testid="ai-hint" aria-label={A.title}>
      <Stack gap={6}>
        <Group gap="xs" wrap="nowrap" align="flex-start">
          <IconSparkles size={16} aria-hidden style={{ flexShrink: 0, marginTop: 2 }} />
          <div style={{ minWidth: 0, flex: 1 }}>
            <Text size="xs" c="dimmed" data-testid="ai-hint-meta">
              {A.title} · {G.engine[h.engine]} · {A.confidence(h.confidence)}
            </Text>
            <Text size="sm" data-testid="ai-hint-text" style={{ overflowWrap: 'anywhere' }}>
              {h.recommendation}
            </Text>
          </div>
          <Anchor component="button" type="button" size="xs" onClick={() => setWhy((w) => !w)} aria-expanded={why}>
            {G.why}
          </Anchor>
        </Group>
        {a && (
          <Group gap={4} wrap="wrap">
            {a.scam.value && (
              <Badge
                color="red.9"
                variant="filled"
                leftSection={<IconAlertTriangle size={12} aria-hidden />}
                data-testid="ai-scam"
              >
                {G.scamWarning}: {G.scam[a.scam.value]}
              </Badge>
            )}
            {a.sales.value && (
              <Badge color="teal" variant="light" c="var(--mantine-color-text)" data-testid="ai-sales">
                {G.sales[a.sales.value]}
              </Badge>
            )}
            {a.personality.value && (
              <Badge color="gray" variant="outline" data-testid="ai-style">
                {G.style(a.personality.value)}
              </Badge>
            )}
            {r?.classification.status === 'ok' && (
              <Badge color="blue" variant="light" c="var(--mantine-color-text)" data-testid="ai-topic">
                {G.topic(r.classification.label, r.classification.confidence)}
              </Badge>
            )}
          </Group>
        )}
        {say && (
          <Paper bg="var(--mantine-color-default-hover)" p={6} radius="sm" data-testid="ai-what-to-say">
            <Group justify="space-between" wrap="nowrap" gap="xs">
              <Text size="xs" c="dimmed" truncate>
                {G.whatToSay} ·{' '}
                {say.source.kind === 'article' ? G.fromArticle(say.source.title) : G.fromReply(say.source.title)}
              </Text>
              <Group gap={4} wrap="nowrap">
                <Button
                  size="compact-xs"
                  data-testid="ai-insert"
                  onClick={() => {
                    onInsert(say.text);
                    feedback({ kind: 'what_to_say', verdict: 'used', source: say.source });
                  }}
                >
                  {G.insert}
                </Button>
                <ActionIcon
                  size="sm"
                  variant="subtle"
                  color="gray"
                  aria-label={G.dismiss}
                  onClick={() => {
                    setDismissed(message.id);
                    feedback({ kind: 'what_to_say', verdict: 'dismissed', source: say.source });
                  }}
                >
                  <IconX size={14} />
                </ActionIcon>
              </Group>
            </Group>
            <Text size="sm" lineClamp={3} style={{ overflowWrap: 'anywhere', whiteSpace: 'pre-wrap' }}>
              {say.text}
            </Text>
          </Paper>
        )}
        <Collapse expanded={why}>
          <Stack gap={2} data-testid="ai-why">
            {cues.length === 0 ? (
              <Text size="xs" c="dimmed">
                {G.noCues}
              </Text>
            ) : (
              <List size="xs" spacing={0}>
                {cues.slice(0, 12).map((c, i) => (
                  // Cues may repeat across readings; their place keeps the keys apart.
                  // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list for this message
                  <List.Item key={i}>
                    “{c.cue}”: {c.means}
                  </List.Item>
                ))}
              </List>
            )}
            {r?.classification.status === 'not_enough_data' && (
              <Text size="xs" c="dimmed" data-testid="ai-not-enough">
                {G.notEnoughData(r.classification.labelled, r.classification.needed)}
              </Text>
            )}
          </Stack>
        </Collapse>
      </Stack>
    </Paper>
  );
}
