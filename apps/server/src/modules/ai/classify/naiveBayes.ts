/**
 * A multinomial naive Bayes text classifier with Laplace (add-one) smoothing, hand-rolled: a few dozen lines
 * a reader can check, JSON a table can hold, and no dependency. Pure: the same examples train the same model.
 */

export interface NbClass {
  label: string;
  /** Training documents of the class (its prior). */
  docs: number;
  /** Word occurrences of the class over the vocabulary (the denominator of its word probabilities). */
  total: number;
  /** Word -> occurrences in the class's documents (words of the vocabulary only). */
  counts: Record<string, number>;
}

export interface NbModel {
  version: 1;
  classes: NbClass[];
  /** Vocabulary size (the smoothing's denominator adds it). */
  vocab: number;
  docs: number;
}

export interface NbExample {
  label: string;
  words: string[];
}

export interface NbAnswer {
  label: string;
  /** The winning class's posterior, tempered (see `classify`), 0..1. */
  confidence: number;
  /** The message's words that favoured the winner most over the runner-up, strongest first. */
  cues: { word: string; weight: number }[];
}

export interface TrainOptions {
  /** At most this many words are kept, the ones in most documents (bounds the model's size). */
  maxVocab?: number;
  /** A word must be in at least this many documents (a word seen once is noise, often a name or a typo). */
  minDocs?: number;
}

/** Own keys only: a customer may well write "constructor". */
const countOf = (c: NbClass, w: string) => (Object.hasOwn(c.counts, w) ? c.counts[w]! : 0);

export function trainNaiveBayes(examples: NbExample[], o: TrainOptions = {}): NbModel {
  const maxVocab = o.maxVocab ?? 20_000;
  const minDocs = o.minDocs ?? 2;
  const df = new Map<string, number>();
  for (const e of examples) for (const w of new Set(e.words)) df.set(w, (df.get(w) ?? 0) + 1);
  const vocab = new Set(
    [...df]
      .filter(([, n]) => n >= minDocs)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, maxVocab)
      .map(([w]) => w),
  );
  const byLabel = new Map<string, NbClass>();
  for (const e of examples) {
    let c = byLabel.get(e.label);
    if (!c) {
      c = { label: e.label, docs: 0, total: 0, counts: {} };
      byLabel.set(e.label, c);
    }
    c.docs++;
    for (const w of e.words)
      if (vocab.has(w)) {
        c.counts[w] = countOf(c, w) + 1;
        c.total++;
      }
  }
  const classes = [...byLabel.values()].sort((a, b) => b.docs - a.docs || (a.label < b.label ? -1 : 1));
  return { version: 1, classes, vocab: vocab.size, docs: examples.length };
}

const logProb = (m: NbModel, c: NbClass, w: string) => Math.log((countOf(c, w) + 1) / (c.total + m.vocab));

/**
 * The most likely class of a text's words, or null when the model has no class or none of the words is in
 * its vocabulary (nothing to go on but the prior, which is no answer).
 *
 * Confidence: naive Bayes counts every word as independent evidence, so its raw posterior is near 1 for
 * almost any message of some length. The log scores are divided by the square root of the number of known
 * words before the softmax: the order (and so the label) is unchanged, and the confidence says how clearly
 * the words lean one way rather than how many there were.
 */
export function classify(m: NbModel, ws: string[], maxCues = 5): NbAnswer | null {
  if (m.classes.length === 0) return null;
  const known = ws.filter((w) => m.classes.some((c) => Object.hasOwn(c.counts, w)));
  if (known.length === 0) return null;
  const tf = new Map<string, number>();
  for (const w of known) tf.set(w, (tf.get(w) ?? 0) + 1);
  const scores = m.classes.map((c) => {
    let s = Math.log((c.docs + 1) / (m.docs + m.classes.length));
    for (const [w, n] of tf) s += n * logProb(m, c, w);
    return s;
  });
  const order = scores.map((s, i) => ({ s, i })).sort((a, b) => b.s - a.s || a.i - b.i);
  const first = order[0]!;
  const best = m.classes[first.i]!;
  const t = Math.sqrt(known.length);
  const top = first.s / t;
  const sum = scores.reduce((acc, s) => acc + Math.exp(s / t - top), 0);
  const confidence = 1 / sum;
  const runner = order[1] ? m.classes[order[1].i]! : undefined;
  const cues = runner
    ? [...tf]
        .map(([word, n]) => ({ word, weight: n * (logProb(m, best, word) - logProb(m, runner, word)) }))
        .filter((c) => c.weight > 0)
        .sort((a, b) => b.weight - a.weight || (a.word < b.word ? -1 : 1))
        .slice(0, maxCues)
    : [];
  return { label: best.label, confidence: Math.min(1, Math.max(0, confidence)), cues };
}
