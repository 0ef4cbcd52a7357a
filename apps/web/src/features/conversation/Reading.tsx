import { Badge, Group, Tooltip } from '@mantine/core';
import { AI_GUIDANCE_STRINGS, dominantEmotion, emotionColor, SCAM_KINDS, type ScamKind } from '@parley/contracts';

/** What the reading badges say (ours: the spec names the fields, not their captions). */
export const READING_STRINGS = {
  emotion: (e: string) => `Emotion: ${e}`,
  ticketEmotion: (e: string) => `Customer's emotion so far: ${e}`,
  context: (c: string) => `About: ${c}`,
  counts: (counts: Record<string, number>) =>
    Object.entries(counts)
      .sort((a, b) => b[1] - a[1])
      .map(([e, n]) => `${e} ${n}`)
      .join(' · '),
};

/** An emotion as a coloured badge (AI-13); hover shows every count. Nothing for no counts or neutral. */
export function EmotionBadge({
  counts,
  label,
  testId,
}: {
  counts: Record<string, number>;
  label(e: string): string;
  testId: string;
}) {
  const emotion = dominantEmotion(counts);
  // Neutral says nothing an agent acts on: no badge, so the ones shown stand out.
  if (!emotion || emotion === 'neutral') return null;
  return (
    <Tooltip label={READING_STRINGS.counts(counts)} withArrow>
      {/* The hue on the background, the words in the text colour: a light yellow or lime word fails contrast. */}
      <Badge
        size="xs"
        variant="light"
        color={emotionColor(emotion)}
        c="var(--mantine-color-text)"
        data-testid={testId}
        aria-label={label(emotion)}
      >
        {emotion}
      </Badge>
    </Tooltip>
  );
}

/**
 * RT-24, RT-25, AI-02: under a customer's message, its emotion and what it is about, as the reader found
 * them (they arrive live with `textEmotion` and `newContext`, and with history afterwards).
 */
export function MessageReading({
  emotion_2,
  context,
  scam_results = [],
}: {
  emotion_2: Record<string, number>;
  context: string;
  scam_results?: Record<string, unknown>[];
}) {
  // AI-02, AI-15: a scam finding the engine kept on the message stays visible in the history.
  const scam = scam_results
    .map((f) => f.value)
    .find((v): v is ScamKind => (SCAM_KINDS as readonly unknown[]).includes(v));
  if (!context && !scam && !Object.keys(emotion_2).some((e) => e !== 'neutral')) return null;
  return (
    <Group gap={4} data-testid="message-reading">
      {scam && (
        <Badge size="xs" color="red.9" variant="filled" data-testid="message-scam">
          {AI_GUIDANCE_STRINGS.scamWarning}: {AI_GUIDANCE_STRINGS.scam[scam]}
        </Badge>
      )}
      <EmotionBadge counts={emotion_2} label={READING_STRINGS.emotion} testId="message-emotion" />
      {context && (
        <Badge
          size="xs"
          variant="outline"
          color="gray"
          data-testid="message-context"
          aria-label={READING_STRINGS.context(context)}
        >
          {context}
        </Badge>
      )}
    </Group>
  );
}
