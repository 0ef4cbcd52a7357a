import type { Emotion } from '@parley/contracts';
import {
  CONTEXT_CUES,
  EMOTION_CUES,
  NEGATED_AS,
  NEGATED_CUES_AS_FRUSTRATION,
  NEGATORS,
  QUESTION_WORDS,
} from './lexicon.js';

/** What a reader makes of one customer message (MSG-01's `emotion_2` and `context`). */
export interface TextReading {
  /** Emotion -> how many cues of it the message has; `{ neutral: 1 }` when none. */
  emotion_2: Record<string, number>;
  /** What the message is about ("Refund"), or '' when nothing says. */
  context: string;
}

/** Reads a customer's text. Pluggable like the hints; the default is `ruleReader`, offline and instant. */
export interface EmotionReader {
  read(text: string): TextReading;
}

/** Lowercase words without apostrophes or markup; `<p>It's late</p>` -> ['its', 'late']. */
export function words(text: string): string[] {
  return text
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#39|apos|rsquo);/gi, "'")
    .replace(/&[a-z]+;|&#\d+;/gi, ' ')
    .toLowerCase()
    .replace(/['’]/g, '')
    .split(/[^\p{L}\p{N}-]+/u)
    .filter(Boolean);
}

type Cue = string[];
const compile = (cue: string): Cue => cue.split(' ');
const wordMatches = (pattern: string, word: string) =>
  pattern.endsWith('*') ? word.startsWith(pattern.slice(0, -1)) : word === pattern;

/** Where a cue starts in `ws` (each place it matches). */
function matchesAt(ws: string[], cue: Cue): number[] {
  const at: number[] = [];
  for (let i = 0; i + cue.length <= ws.length; i++) if (cue.every((p, k) => wordMatches(p, ws[i + k]!))) at.push(i);
  return at;
}

const negators = new Set(NEGATORS);
const negated = (ws: string[], i: number) => ws.slice(Math.max(0, i - 3), i).some((w) => negators.has(w));

const emotionCues = Object.entries(EMOTION_CUES).map(([e, cues]) => ({
  emotion: e as Emotion,
  cues: cues!.map(compile),
}));
const frustrationWhenNegated = NEGATED_CUES_AS_FRUSTRATION.map(compile);
const contextCues = CONTEXT_CUES.map((c) => ({ context: c.context, cues: c.cues.map(compile) }));
const questionWords = new Set(QUESTION_WORDS);

/**
 * The built-in reader: counts cues of the lexicon, each word used once (the longest cue first, so "not
 * good enough" is not also "good"). A negated cue counts as its opposite (NEGATED_AS) or not at all; a
 * question is an enquiry. Rules, not a model: it reads what a message says outright, which is what an agent
 * skimming a queue needs, and a model can take its place behind `EmotionReader`.
 */
export const ruleReader: EmotionReader = {
  read(text) {
    const ws = words(text);
    const used = new Set<number>();
    const counts: Record<string, number> = {};
    const add = (e: string) => {
      counts[e] = (counts[e] ?? 0) + 1;
    };
    const all = emotionCues
      .flatMap(({ emotion, cues }) => cues.map((cue) => ({ emotion, cue })))
      .sort((a, b) => b.cue.length - a.cue.length);
    for (const { emotion, cue } of all) {
      for (const i of matchesAt(ws, cue)) {
        const span = cue.map((_, k) => i + k);
        if (span.some((k) => used.has(k))) continue;
        for (const k of span) used.add(k);
        if (!negated(ws, i)) add(emotion);
        else if (NEGATED_AS[emotion]) add(NEGATED_AS[emotion]!);
      }
    }
    for (const cue of frustrationWhenNegated)
      for (const i of matchesAt(ws, cue)) if (!used.has(i) && negated(ws, i)) add('frustration');
    if (/\?\s*$/.test(text.trim()) || (ws.length > 0 && questionWords.has(ws[0]!) && /\?/.test(text))) add('enquiry');
    const emotion_2 = Object.keys(counts).length > 0 ? counts : { neutral: 1 };
    return { emotion_2, context: contextOf(ws) };
  },
};

function contextOf(ws: string[]): string {
  let best = '';
  let top = 0;
  for (const { context, cues } of contextCues) {
    const n = cues.reduce((sum, cue) => sum + matchesAt(ws, cue).length, 0);
    if (n > top) {
      best = context;
      top = n;
    }
  }
  return best;
}
