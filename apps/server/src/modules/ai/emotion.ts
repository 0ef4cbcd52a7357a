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

/**
 * Cues indexed by the word they start with, or by the first three letters of a `*` first word (shorter
 * prefixes go to `prefixed`), so a read looks each word up instead of trying every cue at every word.
 */
interface CueIndex<T> {
  byFirst: Map<string, T[]>;
  byStem: Map<string, T[]>;
  prefixed: T[];
}
const STEM = 3;
function indexCues<T extends { cue: Cue }>(items: T[]): CueIndex<T> {
  const byFirst = new Map<string, T[]>();
  const byStem = new Map<string, T[]>();
  const prefixed: T[] = [];
  const put = (map: Map<string, T[]>, key: string, item: T) => map.set(key, [...(map.get(key) ?? []), item]);
  for (const item of items) {
    const first = item.cue[0]!;
    if (!first.endsWith('*')) put(byFirst, first, item);
    else if (first.length - 1 >= STEM) put(byStem, first.slice(0, STEM), item);
    else prefixed.push(item);
  }
  return { byFirst, byStem, prefixed };
}
/** Every (cue, position) where a cue of the index matches `ws`, in position order. */
function matchAll<T extends { cue: Cue }>(ws: string[], index: CueIndex<T>): { item: T; at: number }[] {
  const out: { item: T; at: number }[] = [];
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i]!;
    for (const list of [index.byFirst.get(w), index.byStem.get(w.slice(0, STEM)), index.prefixed]) {
      if (!list) continue;
      for (const item of list)
        if (i + item.cue.length <= ws.length && item.cue.every((p, k) => wordMatches(p, ws[i + k]!)))
          out.push({ item, at: i });
    }
  }
  return out;
}

/** Emotion cues, the longest first (a stable sort keeps the lexicon's order among equals), numbered in that order. */
const emotionCues = Object.entries(EMOTION_CUES)
  .flatMap(([e, cues]) => cues!.map((c) => ({ emotion: e as Emotion, cue: compile(c) })))
  .sort((a, b) => b.cue.length - a.cue.length)
  .map((c, order) => ({ ...c, order }));
const emotionIndex = indexCues(emotionCues);
const frustrationWhenNegated = NEGATED_CUES_AS_FRUSTRATION.map(compile);
const contextIndex = indexCues(
  CONTEXT_CUES.flatMap((c, order) => c.cues.map((cue) => ({ context: c.context, order, cue: compile(cue) }))),
);
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
    // The cues in their order (longest first), each at its places in order: a longer cue claims its words first.
    const found = matchAll(ws, emotionIndex).sort((a, b) => a.item.order - b.item.order || a.at - b.at);
    for (const { item, at: i } of found) {
      const span = item.cue.map((_, k) => i + k);
      if (span.some((k) => used.has(k))) continue;
      for (const k of span) used.add(k);
      if (!negated(ws, i)) add(item.emotion);
      else if (NEGATED_AS[item.emotion]) add(NEGATED_AS[item.emotion]!);
    }
    for (const cue of frustrationWhenNegated)
      for (const i of matchesAt(ws, cue)) if (!used.has(i) && negated(ws, i)) add('frustration');
    if (/\?\s*$/.test(text.trim()) || (ws.length > 0 && questionWords.has(ws[0]!) && /\?/.test(text))) add('enquiry');
    const emotion_2 = Object.keys(counts).length > 0 ? counts : { neutral: 1 };
    return { emotion_2, context: contextOf(ws) };
  },
};

/** The context with the most cue matches; a tie goes to the earlier in CONTEXT_CUES. */
function contextOf(ws: string[]): string {
  const hits = new Array<number>(CONTEXT_CUES.length).fill(0);
  for (const { item } of matchAll(ws, contextIndex)) hits[item.order]!++;
  let best = '';
  let top = 0;
  hits.forEach((n, order) => {
    if (n > top) {
      best = CONTEXT_CUES[order]!.context;
      top = n;
    }
  });
  return best;
}
