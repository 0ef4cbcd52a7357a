/**
 * A small in-memory BM25 index (Okapi BM25, k1 1.2, b 0.75, Lucene's always-positive idf). Pure: built
 * from documents' terms, searched with a message's terms; postings per term, so a search reads only the
 * documents that share a word with the message.
 */

export interface Bm25Doc<T> {
  /** The document's terms, repeats counted (a field weighted twice appears twice). */
  terms: string[];
  item: T;
}

export interface Bm25Hit<T> {
  item: T;
  score: number;
  /** The message's terms the document has, with what each added to the score, largest first. */
  matched: { term: string; weight: number }[];
}

const K1 = 1.2;
const B = 0.75;

export class Bm25Index<T> {
  private readonly postings = new Map<string, { doc: number; tf: number }[]>();
  private readonly lengths: number[] = [];
  private readonly items: T[] = [];
  private readonly avgdl: number;
  /** A rough size in bytes (the cache's budget counts it). */
  readonly bytes: number;

  constructor(docs: Bm25Doc<T>[], itemBytes: (item: T) => number = () => 64) {
    let total = 0;
    let bytes = 0;
    docs.forEach((d, i) => {
      const tf = new Map<string, number>();
      for (const t of d.terms) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [term, n] of tf) {
        let list = this.postings.get(term);
        if (!list) {
          list = [];
          this.postings.set(term, list);
          bytes += term.length * 2 + 48;
        }
        list.push({ doc: i, tf: n });
        bytes += 24;
      }
      this.lengths.push(d.terms.length);
      this.items.push(d.item);
      total += d.terms.length;
      bytes += itemBytes(d.item) + 16;
    });
    this.avgdl = docs.length > 0 ? total / docs.length : 0;
    this.bytes = bytes;
  }

  get size(): number {
    return this.items.length;
  }

  idf(term: string): number {
    const n = this.postings.get(term)?.length ?? 0;
    return Math.log(1 + (this.items.length - n + 0.5) / (n + 0.5));
  }

  /** The best `limit` documents for the message's terms (each term counted once), best first. */
  search(query: string[], limit = 10): Bm25Hit<T>[] {
    const acc = new Map<number, { score: number; matched: { term: string; weight: number }[] }>();
    for (const term of new Set(query)) {
      const list = this.postings.get(term);
      if (!list) continue;
      const idf = this.idf(term);
      for (const { doc, tf } of list) {
        const norm = tf + K1 * (1 - B + (B * this.lengths[doc]!) / (this.avgdl || 1));
        const weight = (idf * tf * (K1 + 1)) / norm;
        let a = acc.get(doc);
        if (!a) {
          a = { score: 0, matched: [] };
          acc.set(doc, a);
        }
        a.score += weight;
        a.matched.push({ term, weight });
      }
    }
    return [...acc]
      .sort((x, y) => y[1].score - x[1].score || x[0] - y[0])
      .slice(0, limit)
      .map(([doc, a]) => ({
        item: this.items[doc]!,
        score: a.score,
        matched: a.matched.sort((x, y) => y.weight - x.weight),
      }));
  }
}
