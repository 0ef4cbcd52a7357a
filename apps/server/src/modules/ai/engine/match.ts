import { words } from '../emotion.js';
import { NEGATORS } from '../lexicon.js';

/**
 * Cue matching for the offline engine's readers. A message is read as sentences of lowercase words (the
 * emotion reader's `words()`: markup and apostrophes gone, so "don't" is "dont"); a cue never spans two
 * sentences, and a negator counts only inside the cue's own sentence.
 *
 * A cue is a pattern of space-separated tokens:
 * - `word` one word; `a|b|c` any of them; `pay*` any word starting with "pay";
 * - `tok?` optional (`the|our? account`);
 * - `_` any one word (`within _ hours`);
 * - `~N` up to N words of anything (`send ~4 password`: "send us your login password").
 */

/**
 * Only the first MAX_CHARS characters of a message are read (about 1,700 words, four pages): more than anyone
 * types; what follows in a 100 kB message is a quoted thread or a pasted log. It keeps a call under 20 ms.
 */
export const MAX_CHARS = 10_000;

export interface Sentences {
  /** Each sentence's words. */
  list: string[][];
  /** Each word's first STEM letters (the key of `prefix*` cues), computed once for every lexicon. */
  stems: string[][];
  /** How many words in all. */
  count: number;
}

/** The capped text split into sentences of words. A sentence ends at . ! ? ; followed by a space, or at a line break. */
export function sentencesOf(text: string): Sentences {
  const list: string[][] = [];
  const stems: string[][] = [];
  let count = 0;
  for (const part of text.slice(0, MAX_CHARS).split(/(?<=[.!?;])\s+|\n+/)) {
    const ws = words(part);
    if (ws.length === 0) continue;
    list.push(ws);
    stems.push(ws.map((w) => w.slice(0, STEM)));
    count += ws.length;
  }
  return { list, stems, count };
}

type Token =
  | { kind: 'word'; exact: Set<string>; prefixes: string[]; optional: boolean }
  | { kind: 'any'; optional: boolean }
  | { kind: 'gap'; max: number };

/** One entry of a reader's lexicon. */
export interface CueSpec {
  /** The pattern (see above). */
  cue: string;
  /** Why it matters, shown to the agent beside the words matched. */
  means: string;
  /** A negator up to `negationWindow` words before it cancels it (default true). */
  negatable?: boolean;
  /** Words that must not be inside the match ("my": the customer's own password is not a request for ours). */
  without?: string[];
  /** Words (or `prefix*`) of which one must be in the same sentence. */
  near?: string[];
  /** A second such list: one of these too must be in the sentence. */
  alsoNear?: string[];
  /** Words that must not be anywhere in the sentence ("my": the customer speaking of their own account). */
  sentenceWithout?: string[];
  /** How much the cue counts (default 1). */
  weight?: number;
}

interface WordSet {
  exact: Set<string>;
  prefixes: string[];
}

export interface CompiledCue extends CueSpec {
  tokens: Token[];
  nearSets: WordSet[];
}

const wordSet = (list: string[]): WordSet => ({
  exact: new Set(list.filter((w) => !w.endsWith('*'))),
  prefixes: list.filter((w) => w.endsWith('*')).map((w) => w.slice(0, -1)),
});
const inSet = (set: WordSet, w: string) => set.exact.has(w) || set.prefixes.some((p) => w.startsWith(p));

function compileToken(raw: string): Token {
  if (/^~\d+$/.test(raw)) return { kind: 'gap', max: Number(raw.slice(1)) };
  const optional = raw.endsWith('?');
  const body = optional ? raw.slice(0, -1) : raw;
  if (body === '_') return { kind: 'any', optional };
  const alts = body.split('|');
  return {
    kind: 'word',
    exact: new Set(alts.filter((a) => !a.endsWith('*'))),
    prefixes: alts.filter((a) => a.endsWith('*')).map((a) => a.slice(0, -1)),
    optional,
  };
}

function fits(t: Token & { kind: 'word' }, w: string): boolean {
  if (t.exact.has(w)) return true;
  for (const p of t.prefixes) if (w.startsWith(p)) return true;
  return false;
}

/** Where a match of `tokens[t..]` starting at `i` ends (exclusive), or -1. Optional tokens are tried taken first. */
function matchFrom(ws: string[], i: number, tokens: Token[], t: number): number {
  if (t === tokens.length) return i;
  const tok = tokens[t]!;
  if (tok.kind === 'gap') {
    for (let k = 0; k <= tok.max && i + k <= ws.length; k++) {
      const end = matchFrom(ws, i + k, tokens, t + 1);
      if (end >= 0) return end;
    }
    return -1;
  }
  const ok = i < ws.length && (tok.kind === 'any' || fits(tok, ws[i]!));
  if (ok) {
    const end = matchFrom(ws, i + 1, tokens, t + 1);
    if (end >= 0 || !tok.optional) return end;
  }
  return tok.optional ? matchFrom(ws, i, tokens, t + 1) : -1;
}

/** A lexicon ready to match: its cues indexed by the words (or first letters of the words) a match can start with. */
export interface Lexicon {
  cues: CompiledCue[];
  byWord: Map<string, number[]>;
  /** Keyed by the first STEM letters of a `prefix*` a match can start with. */
  byStem: Map<string, number[]>;
  /** Cues that can start with any word (`_`, `~N`, or a prefix shorter than STEM): tried at every position. */
  anywhere: number[];
}

const STEM = 3;

/** The words, stems and wildcards a match of `tokens[t..]` can start with. */
function startsOf(tokens: Token[], t: number, into: { words: Set<string>; stems: Set<string>; any: boolean }) {
  const tok = tokens[t];
  if (!tok) return;
  if (tok.kind !== 'word') {
    into.any = true;
    return;
  }
  for (const w of tok.exact) into.words.add(w);
  for (const p of tok.prefixes) {
    if (p.length >= STEM) into.stems.add(p.slice(0, STEM));
    else into.any = true;
  }
  if (tok.optional) startsOf(tokens, t + 1, into);
}

export function compileLexicon(specs: CueSpec[]): Lexicon {
  const lexicon: Lexicon = { cues: [], byWord: new Map(), byStem: new Map(), anywhere: [] };
  const put = (map: Map<string, number[]>, key: string, n: number) => map.set(key, [...(map.get(key) ?? []), n]);
  for (const spec of specs) {
    const tokens = spec.cue.split(' ').map(compileToken);
    const n = lexicon.cues.length;
    lexicon.cues.push({
      ...spec,
      tokens,
      nearSets: [spec.near, spec.alsoNear].filter((l): l is string[] => !!l).map(wordSet),
    });
    const starts = { words: new Set<string>(), stems: new Set<string>(), any: false };
    startsOf(tokens, 0, starts);
    if (starts.any) lexicon.anywhere.push(n);
    else {
      for (const w of starts.words) put(lexicon.byWord, w, n);
      for (const stem of starts.stems) put(lexicon.byStem, stem, n);
    }
  }
  return lexicon;
}

export interface Hit {
  cue: CompiledCue;
  /** The words matched, as they read in the message (lowercased). */
  text: string;
  sentence: number;
  start: number;
  end: number;
}

/** Negators of the emotion reader plus the contractions it lacks. */
const NEGATOR_SET = new Set([
  ...NEGATORS,
  'havent',
  'hasnt',
  'arent',
  'werent',
  'wouldnt',
  'shouldnt',
  'couldnt',
  'nor',
  'neither',
]);

export interface FindOptions {
  /** How many words before a cue a negator reaches (default 3, as the emotion reader). */
  negationWindow?: number;
  /** More words that negate for this reader ("stop emailing me about upgrading"). */
  extraNegators?: string[];
}

/** What one `findCues` call shares while it walks the words. */
interface Walk {
  lexicon: Lexicon;
  window: number;
  extra: Set<string>;
  /** The walk step at which each cue was last tried, so a cue indexed twice is tried once per word. */
  tried: Int32Array;
  step: number;
}

/** Tries the cues of `list` at word `i` of sentence `ws`; matches go to `into`. */
function tryAt(walk: Walk, ws: string[], sentence: number, i: number, list: number[] | undefined, into: Hit[]) {
  if (!list) return;
  for (const n of list) {
    if (walk.tried[n] === walk.step) continue;
    walk.tried[n] = walk.step;
    const cue = walk.lexicon.cues[n]!;
    const end = matchFrom(ws, i, cue.tokens, 0);
    if (end <= i) continue;
    const span = ws.slice(i, end);
    if (cue.without?.some((w) => span.includes(w))) continue;
    if (!cue.nearSets.every((set) => ws.some((w) => inSet(set, w)))) continue;
    if (cue.sentenceWithout?.some((w) => ws.includes(w))) continue;
    if (cue.negatable !== false && negatedAt(ws, i, walk.window, walk.extra)) continue;
    into.push({ cue, text: span.join(' '), sentence, start: i, end });
  }
}

function negatedAt(ws: string[], i: number, window: number, extra: Set<string>): boolean {
  for (let k = Math.max(0, i - window); k < i; k++) if (NEGATOR_SET.has(ws[k]!) || extra.has(ws[k]!)) return true;
  return false;
}

/**
 * Every match of the lexicon's cues, longest first and never two on the same words; a negated cue (a negator
 * shortly before it, same sentence) is left out unless the cue says it is not negatable.
 */
export function findCues(s: Sentences, lexicon: Lexicon, options: FindOptions = {}): Hit[] {
  const walk: Walk = {
    lexicon,
    window: options.negationWindow ?? 3,
    extra: new Set(options.extraNegators ?? []),
    tried: new Int32Array(lexicon.cues.length).fill(-1),
    step: 0,
  };
  const found: Hit[] = [];
  for (let sentence = 0; sentence < s.list.length; sentence++) {
    const ws = s.list[sentence]!;
    const stems = s.stems[sentence]!;
    const all: Hit[] = [];
    for (let i = 0; i < ws.length; i++, walk.step++) {
      tryAt(walk, ws, sentence, i, lexicon.byWord.get(ws[i]!), all);
      if (lexicon.byStem.size > 0) tryAt(walk, ws, sentence, i, lexicon.byStem.get(stems[i]!), all);
      tryAt(walk, ws, sentence, i, lexicon.anywhere, all);
    }
    if (all.length === 0) continue;
    all.sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start);
    const used = new Set<number>();
    for (const hit of all) {
      let free = true;
      for (let k = hit.start; k < hit.end && free; k++) if (used.has(k)) free = false;
      if (!free) continue;
      for (let k = hit.start; k < hit.end; k++) used.add(k);
      found.push(hit);
    }
  }
  return found;
}

/** The score of hits: their weights added. */
export const scoreOf = (hits: Hit[]) => hits.reduce((sum, h) => sum + (h.cue.weight ?? 1), 0);

/** A confidence from a score: one cue 0.6, two 0.84, three 0.94, never above 0.95. */
export const confidenceOf = (score: number) => Math.round(Math.min(0.95, 1 - 0.4 ** Math.max(score, 0)) * 100) / 100;

/** Hits as the contract's cues, one per distinct wording. */
export function cuesOf(hits: Hit[]): { cue: string; means: string }[] {
  const seen = new Set<string>();
  const out: { cue: string; means: string }[] = [];
  for (const h of hits) {
    const key = `${h.text}\u0000${h.cue.means}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ cue: h.text, means: h.cue.means });
  }
  return out;
}
