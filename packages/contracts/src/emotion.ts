import { z } from 'zod';

/** AI-11: the emotions a reading names (the colour list). */
export const EMOTIONS = [
  'neutral',
  'anger',
  'fear',
  'frustration',
  'threat',
  'complaint',
  'commitment',
  'trust',
  'satisfaction',
  'appreciation',
  'gratitude',
  'relief',
  'joy',
  'excitement',
  'disappointment',
  'sadness',
  'dissatisfaction',
  'sarcasm',
  'guilt',
  'surprise',
  'concerned',
  'confusion',
  'sad',
  'happy',
  'disgust',
  'hope',
  'support',
  'enquiry',
] as const;
export type Emotion = (typeof EMOTIONS)[number];

/** AI-12: names older readings used; still shown (with their own colours). */
export const OLD_EMOTIONS = ['anger', 'fear', 'happy', 'love', 'sad', 'surprise', 'curious'] as const;

/**
 * AI-13 (design): a Mantine colour per emotion. Warm reds and oranges for what needs care, greens and teals
 * for what went well, blues and violets for questions and trust, grey for neutral; an unknown name is grey.
 */
export const EMOTION_COLORS: Record<string, string> = {
  neutral: 'gray',
  anger: 'red',
  fear: 'grape',
  frustration: 'orange',
  threat: 'red',
  complaint: 'orange',
  commitment: 'indigo',
  trust: 'blue',
  satisfaction: 'green',
  appreciation: 'teal',
  gratitude: 'teal',
  relief: 'lime',
  joy: 'green',
  excitement: 'yellow',
  disappointment: 'orange',
  sadness: 'violet',
  dissatisfaction: 'orange',
  sarcasm: 'pink',
  guilt: 'grape',
  surprise: 'cyan',
  concerned: 'yellow',
  confusion: 'cyan',
  sad: 'violet',
  happy: 'green',
  disgust: 'pink',
  hope: 'lime',
  support: 'blue',
  enquiry: 'blue',
  love: 'pink',
  curious: 'cyan',
  // REC-06's voice emotions.
  angry: 'red',
  calm: 'teal',
  fearful: 'grape',
  surprised: 'cyan',
};
export const emotionColor = (e: string): string => EMOTION_COLORS[e] ?? 'gray';

/** The emotion with the highest count (the earlier one in EMOTIONS on a tie); '' for no counts. */
export function dominantEmotion(counts: Record<string, number>): string {
  let best = '';
  let top = 0;
  for (const [e, n] of Object.entries(counts)) {
    const earlier = best !== '' && rank(e) < rank(best);
    if (n > top || (n === top && n > 0 && earlier)) {
      best = e;
      top = n;
    }
  }
  return best;
}
const rank = (e: string) => {
  const i = (EMOTIONS as readonly string[]).indexOf(e);
  return i < 0 ? EMOTIONS.length : i;
};

/** Adds one message's counts to a ticket's (AI-14: a ticket's emotion_2 counts its customer's messages). */
export function addCounts(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out = { ...a };
  for (const [e, n] of Object.entries(b)) out[e] = (out[e] ?? 0) + n;
  return out;
}

const Counts = z.record(z.string(), z.number());

/**
 * RT-25, text emotion: the reading of one customer message, to the staff of its conversation. `emotion` is
 * the message's dominant emotion; `emotion_2` its counts (MSG-01's field).
 */
export const TextEmotionEvent = z.object({
  ticketId: z.number(),
  messageId: z.number(),
  source: z.enum(['customer', 'agent']),
  emotion: z.string(),
  emotion_2: Counts,
  /** AI-02: the engine's findings on the message, as it keeps them (absent for a voice reading). */
  recommendation: z.string().optional(),
  aiqon_results: z.array(z.record(z.string(), z.unknown())).optional(),
  scam_results: z.array(z.record(z.string(), z.unknown())).optional(),
});
export type TextEmotionEvent = z.infer<typeof TextEmotionEvent>;

/**
 * RT-24 `newEmotion`: a ticket's emotion changed (AI-14: `emotion`, the dominant one, and `emotion_2`, the
 * counts over its customer's messages), with the message that changed it and that message's own counts.
 */
export const NewEmotionEvent = z.object({
  ticketId: z.number(),
  messageId: z.number(),
  message_emotion_2: Counts,
  emotion: z.string(),
  emotion_2: Counts,
});
export type NewEmotionEvent = z.infer<typeof NewEmotionEvent>;

/** RT-24 `newContext`: what a customer message is about (MSG-01's `context`), e.g. "Refund". */
export const NewContextEvent = z.object({ ticketId: z.number(), messageId: z.number(), context: z.string() });
export type NewContextEvent = z.infer<typeof NewContextEvent>;

/** REC-06: the emotions a voice reading names (the recording filter's). */
export const RECORDING_EMOTIONS = ['angry', 'happy', 'calm', 'sad', 'fearful', 'disgust', 'surprised'] as const;
export type RecordingEmotion = (typeof RECORDING_EMOTIONS)[number];

/** CALL-31: voice energy and pace are one of these. */
export const ENERGY_STEPS = [0, 25, 50, 75, 100] as const;

/** What the voice analysis says when it cannot. */
export const VOICE_STRINGS = {
  notAudio: 'Only audio files can be analysed.',
  notWav: 'This audio cannot be read here: send a WAV file (PCM or 32-bit float).',
  noFile: 'Attach the audio file as attachment.',
};

/**
 * CALL-50: `POST /api/upload/voice` answers percentage (emotion -> share of the voiced seconds, adding up to
 * 100), and per second of audio its emotion ('' for silence), amplitude (0 silence to 100 full scale) and
 * tempo (onsets a minute); energy and pace of the whole on CALL-31's steps (ours, for the call panels).
 */
export const VoiceAnalysis = z.object({
  percentage: z.record(z.string(), z.number()),
  emotion: z.array(z.union([z.enum(RECORDING_EMOTIONS), z.literal('')])),
  amplitude: z.array(z.number()),
  tempo: z.array(z.number()),
  energy: z.number(),
  pace: z.number(),
});
export type VoiceAnalysis = z.infer<typeof VoiceAnalysis>;

/**
 * RT-25, voice emotion: a recording (WAV) attached to a conversation was heard; to the conversation's staff.
 * `emotion_2` is the share of its voiced seconds per emotion, `emotion` the largest.
 */
export const VoiceEmotionEvent = z.object({
  ticketId: z.number(),
  messageId: z.number(),
  source: z.enum(['customer', 'agent']),
  emotion: z.string(),
  emotion_2: Counts,
  energy: z.number(),
  pace: z.number(),
});
export type VoiceEmotionEvent = z.infer<typeof VoiceEmotionEvent>;
