import type { WhatToSay } from '@parley/contracts';
import { sql } from 'kysely';
import type { DB } from '../../../platform/db/db.js';
import { stem, terms } from '../classify/terms.js';
import { Bm25Index } from './bm25.js';
import { articleSources, articlesSignature, replySources, type Source } from './sources.js';

/** Past replies are read again when the index is older than this (articles: as soon as they change). */
export const REPLIES_TTL_MS = 5 * 60_000;
/** The indexes of all accounts together stay under about this many bytes (the least recently asked go first). */
const BUDGET_BYTES = 64 * 1024 * 1024;
/** Candidates re-ranked by feedback. */
const CANDIDATES = 20;

/**
 * The floor, on the share of the message's content words a source has: half of them (a short question), or
 * two words and 15 %, or four words and 5 % (a long message that mentions much else). Below that it is
 * "nothing similar": a word in common is not an answer. (Not on the BM25 score itself: its scale moves with
 * the size of the account's corpus.)
 */
export const similarEnough = (shared: number, asked: number) =>
  asked > 0 &&
  ((shared >= 1 && shared / asked >= 0.5) ||
    (shared >= 2 && shared / asked >= 0.15) ||
    (shared >= 4 && shared / asked >= 0.05));

/** A text's retrieval terms (stemmed content words), and for each stem the word as the text wrote it. */
export function retrievalTerms(text: string): { terms: string[]; written: Map<string, string> } {
  const written = new Map<string, string>();
  const out = terms(text).map((w) => {
    const s = stem(w);
    if (!written.has(s)) written.set(s, w);
    return s;
  });
  return { terms: out, written };
}

/**
 * Feedback's weight: each use raises a source's score by 10 %, each dismissal lowers it by 20 %, within
 * 0.4..1.5 of its BM25 score (a few votes reorder close sources; none buries a good match for ever).
 */
export const feedbackFactor = (used: number, dismissed: number) =>
  Math.min(1.5, Math.max(0.4, 1 + 0.1 * used - 0.2 * dismissed));

interface Entry {
  index: Bm25Index<Source>;
  builtAt: number;
  articles: string;
}

/**
 * "What to say" per account: BM25 over the account's published articles and its team's past replies, in one
 * in-memory index per account (so idf is the account's own, and both databases rank alike), built when first
 * asked, rebuilt when the articles change or the replies are older than REPLIES_TTL_MS, and kept in an LRU
 * under a byte budget. Uses and dismissals (ai_feedback) re-rank the best candidates.
 */
export class WhatToSayIndex {
  private readonly entries = new Map<number, Entry>();
  private readonly building = new Map<number, Promise<Entry>>();

  constructor(
    private readonly db: DB,
    private readonly publicUrl: string | undefined,
    private readonly now: () => number = Date.now,
    private readonly budget = BUDGET_BYTES,
  ) {}

  /** The best source for the text, or null when nothing scores above the floor. `ticketId`'s own replies are left out. */
  async suggest(accountId: number, text: string, ticketId = 0): Promise<WhatToSay | null> {
    const { terms: query, written } = retrievalTerms(text);
    if (query.length === 0) return null;
    const asked = written.size;
    const { index } = await this.entryOf(accountId);
    const hits = index
      .search(query, CANDIDATES + 1)
      .filter((h) => h.item.ticketId === 0 || h.item.ticketId !== ticketId)
      .filter((h) => similarEnough(h.matched.length, asked))
      .slice(0, CANDIDATES);
    if (hits.length === 0) return null;
    const votes = await this.votes(
      accountId,
      hits.map((h) => h.item),
    );
    const ranked = hits
      .map((h) => {
        const v = votes.get(`${h.item.kind}:${h.item.id}`);
        return { ...h, adjusted: h.score * (v ? feedbackFactor(v.used, v.dismissed) : 1) };
      })
      .sort((a, b) => b.adjusted - a.adjusted || b.score - a.score);
    const best = ranked[0]!;
    const where =
      best.item.kind === 'article' ? `in the article "${best.item.title}"` : 'in a question the team answered';
    return {
      text: best.item.text,
      source: { kind: best.item.kind, id: best.item.id, title: best.item.title },
      score: Math.round(best.adjusted * 1000) / 1000,
      cues: best.matched.slice(0, 5).map((m) => ({ cue: written.get(m.term) ?? m.term, means: `also ${where}` })),
    };
  }

  /** Drops an account's index (the next question builds it again). */
  forget(accountId: number): void {
    this.entries.delete(accountId);
  }

  private async votes(accountId: number, sources: Source[]) {
    const out = new Map<string, { used: number; dismissed: number }>();
    const ids = [...new Set(sources.map((s) => s.id))];
    const rows = await this.db
      .selectFrom('ai_feedback')
      .select([
        'source_kind',
        'source_id',
        sql<number>`sum(case when verdict = 'used' then 1 else 0 end)`.as('used'),
        sql<number>`sum(case when verdict = 'dismissed' then 1 else 0 end)`.as('dismissed'),
      ])
      .where('account_id', '=', accountId)
      .where('kind', '=', 'what_to_say')
      .where('source_id', 'in', ids)
      .groupBy(['source_kind', 'source_id'])
      .execute();
    for (const r of rows)
      out.set(`${r.source_kind}:${Number(r.source_id)}`, { used: Number(r.used), dismissed: Number(r.dismissed) });
    return out;
  }

  private async entryOf(accountId: number): Promise<Entry> {
    const articles = await articlesSignature(this.db, accountId);
    const had = this.entries.get(accountId);
    if (had && had.articles === articles && this.now() - had.builtAt < REPLIES_TTL_MS) {
      // Most recently asked last: the LRU's order.
      this.entries.delete(accountId);
      this.entries.set(accountId, had);
      return had;
    }
    const running = this.building.get(accountId);
    if (running) return running;
    const p = this.build(accountId, articles).finally(() => this.building.delete(accountId));
    this.building.set(accountId, p);
    return p;
  }

  private async build(accountId: number, articles: string): Promise<Entry> {
    const builtAt = this.now();
    const sources = [
      ...(await articleSources(this.db, accountId, this.publicUrl)),
      ...(await replySources(this.db, accountId)),
    ];
    const index = new Bm25Index(
      sources.map((s) => ({ terms: retrievalTerms(s.terms).terms, item: s })),
      (s) => (s.text.length + s.title.length) * 2 + 64,
    );
    const entry = { index, builtAt, articles };
    this.entries.delete(accountId);
    this.entries.set(accountId, entry);
    let total = 0;
    for (const e of this.entries.values()) total += e.index.bytes;
    for (const [id, e] of this.entries) {
      if (total <= this.budget || id === accountId) break;
      this.entries.delete(id);
      total -= e.index.bytes;
    }
    return entry;
  }
}
