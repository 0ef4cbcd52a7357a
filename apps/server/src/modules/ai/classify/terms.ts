import { words } from '../emotion.js';

/**
 * Words that say nothing about what a message is about (English, and the commonest of a few other languages
 * customers write in). Dropped before a model or an index sees the text: with a small corpus BM25's and naive
 * Bayes' own weighting leave too much on them, and a cue like "the" explains nothing to an agent.
 */
const STOP = new Set(
  `a about above after again against all am an and any are as at be because been before being below between
  both but by can could did do does doing done down during each few for from further get got had has have having
  he her here hers herself him himself his how i if in into is it its itself just let me more most my myself no
  nor not now of off on once only or other our ours ourselves out over own please same she should so some such
  than thank thanks that the their theirs them themselves then there these they this those through to too under
  until up very was we were what when where which while who whom why will with would you your yours yourself
  yourselves hi hello hey dear regards im ive id ill dont cant wont didnt doesnt isnt wasnt arent also still
  already yet one two us ok okay yes really much many like
  der die das und ist nicht ich sie es ein eine mit auf für von zu den dem des le la les et est pas je vous il
  un une des du de en que qui el los las y es no yo usted un una por para con`.split(/\s+/),
);

/** At most this much of a text is read (a 100 kB message still answers at once; its start says what it is about). */
export const TEXT_CAP = 20_000;

/**
 * The content words of a text: `words()` of the emotion reader (lower case, markup and apostrophes gone),
 * without stop words, single letters and bare numbers (order numbers and dates are noise to a topic).
 */
export function terms(text: string): string[] {
  return words(text.slice(0, TEXT_CAP)).filter((w) => w.length > 1 && !STOP.has(w) && !/^[\d-]+$/.test(w));
}

/**
 * A light English suffix stripper for retrieval ("refunds", "refunded" -> "refund"; "arrive", "arrived",
 * "arriving" -> "arriv"): a question and an article rarely use the same form of a word. Plain a-z words
 * only (other languages are left as written), and never shorter than three letters.
 */
export function stem(w: string): string {
  if (w.length < 4 || !/^[a-z]+$/.test(w)) return w;
  let s = w;
  if (s.endsWith('ies') && s.length > 4) s = `${s.slice(0, -3)}y`;
  else if (s.endsWith('ing') && s.length > 5) s = s.slice(0, -3);
  else if (s.endsWith('ed') && s.length > 4) s = s.slice(0, -2);
  else if (s.endsWith('es') && s.length > 4 && /(ch|sh|x|z|ss)es$/.test(s)) s = s.slice(0, -2);
  else if (s.endsWith('s') && !/(ss|us|is)$/.test(s)) s = s.slice(0, -1);
  // "shipping" -> "shipp" -> "ship"; "arrive"/"charge" -> "arriv"/"charg", as their -ed and -ing forms.
  if (s.length > 3 && /([bdgmnprt])\1$/.test(s)) s = s.slice(0, -1);
  if (s.length > 3 && s.endsWith('e')) s = s.slice(0, -1);
  return s;
}
