import { ruleReader } from '../ai/index.js';

/** What extraction needs of an instrument. */
export interface WatchedInstrument {
  id: number;
  symbol: string;
  name: string;
  aliases: readonly string[];
}

/** Markup and entities out, as the engine reads a message. */
const plain = (text: string) =>
  text
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#39|apos|rsquo);/gi, "'")
    .replace(/&amp;/gi, '&')
    .replace(/&[a-z]+;|&#\d+;/gi, ' ');

const quote = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
/** No letter or digit right before or after: a whole word or phrase. */
const whole = (body: string, flags: string) => new RegExp(`(?<![\\p{L}\\p{N}])(?:${body})(?![\\p{L}\\p{N}])`, flags);

/**
 * The instruments a message names, each once, in watch-list order. A symbol matches in capitals as a whole
 * word (`AAPL`; `aapl` does not, since tickers such as `ON` or `ALL` are everyday words in lower case), or in
 * any case as a cashtag (`$aapl`); the name and aliases match as whole words or phrases in any case, inner
 * spaces matching any run of white space.
 */
export function findMentions(text: string, instruments: readonly WatchedInstrument[]): number[] {
  const t = plain(text);
  const out: number[] = [];
  for (const i of instruments) {
    const symbol = quote(i.symbol);
    const phrases = [i.name, ...i.aliases]
      .map((p) => p.trim())
      .filter((p) => p.length >= 2)
      .map((p) => quote(p).replace(/\s+/g, '\\s+'));
    const hit =
      whole(symbol, 'u').test(t) ||
      new RegExp(`\\$${symbol}(?![\\p{L}\\p{N}])`, 'iu').test(t) ||
      (phrases.length > 0 && whole(phrases.join('|'), 'iu').test(t));
    if (hit) out.push(i.id);
  }
  return out;
}

/** The engine's emotions that count for and against. */
const POSITIVE = new Set([
  'trust',
  'satisfaction',
  'appreciation',
  'gratitude',
  'relief',
  'joy',
  'excitement',
  'happy',
  'hope',
  'commitment',
  'support',
]);
const NEGATIVE = new Set([
  'anger',
  'fear',
  'frustration',
  'threat',
  'complaint',
  'disappointment',
  'sadness',
  'dissatisfaction',
  'sarcasm',
  'concerned',
  'sad',
  'disgust',
]);

/** Market words the support reader does not know ("long" and "short" left out: "how long", "short of"). */
const BULLISH = [
  'bullish',
  'rally',
  'rallying',
  'buy',
  'buying',
  'breakout',
  'moon',
  'surge',
  'soar',
  'upside',
  'outperform',
];
const BEARISH = [
  'bearish',
  'crash',
  'crashing',
  'sell',
  'selling',
  'shorting',
  'dump',
  'plunge',
  'tank',
  'downside',
  'selloff',
];
const NEGATORS = new Set(['not', 'no', 'never', 'dont', 'doesnt', 'isnt', 'wont', 'cant', 'arent']);

const tokens = (text: string) =>
  plain(text)
    .toLowerCase()
    .replace(/['’]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/**
 * The sentiment of a message in hundredths (-100..100): the engine's rule reading (its positive emotions
 * against its negative ones) plus the market lexicon, a negation in the three words before a market cue
 * turning it round. `(positive - negative) / (positive + negative)`; 0 when nothing counts.
 */
export function sentimentOf(text: string): number {
  let pos = 0;
  let neg = 0;
  for (const [e, n] of Object.entries(ruleReader.read(text).emotion_2)) {
    if (POSITIVE.has(e)) pos += n;
    else if (NEGATIVE.has(e)) neg += n;
  }
  const ws = tokens(text);
  ws.forEach((w, i) => {
    const side = BULLISH.includes(w) ? 1 : BEARISH.includes(w) ? -1 : 0;
    if (side === 0) return;
    const negated = ws.slice(Math.max(0, i - 3), i).some((x) => NEGATORS.has(x));
    if (side > 0 !== negated) pos += 1;
    else neg += 1;
  });
  if (pos + neg === 0) return 0;
  return Math.round(((pos - neg) / (pos + neg)) * 100);
}

/** The UTC day of a time in ms, `YYYY-MM-DD`. */
export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
