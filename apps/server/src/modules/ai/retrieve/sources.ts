import { type KbLang, type KbType, kbArticlePath, markdownToText, SENDERS, WORKSPACE_CHANNEL } from '@parley/contracts';
import { sql } from 'kysely';
import type { DB } from '../../../platform/db/db.js';
import { htmlToText } from '../../messages/index.js';

/** What the index answers with: a published article or a team member's past reply. */
export interface Source {
  kind: 'article' | 'reply';
  /** The article's id, or the reply message's. */
  id: number;
  /** The article's title, or the number of the ticket the reply was sent on. */
  title: string;
  /** What an agent inserts. */
  text: string;
  /** The reply's ticket (a message's own ticket is not searched for its answer); 0 for an article. */
  ticketId: number;
  /** The words the source is found by (the article's title twice, its body and Q&A; the question replied to). */
  terms: string;
}

/** At most this many published articles (newest change first) and tickets of past replies are read. */
export const MAX_ARTICLES = 2_000;
export const MAX_REPLY_TICKETS = 1_000;
/** At most this many question/reply pairs an account (the newest). */
export const MAX_PAIRS = 4_000;
/** A message is read up to this length (questions and replies longer than this are cut). */
const MESSAGE_CAP = 4_000;
/** The start of an article inserted: its first paragraphs up to about this many characters. */
const ARTICLE_EXCERPT = 600;
/** Replies of fewer words say nothing worth suggesting ("ok", "thanks!"). */
const MIN_REPLY_WORDS = 4;

/** Senders that are neither the customer nor a team member. */
const NOT_TEAM = new Set<string>([SENDERS.visitor, SENDERS.server, SENDERS.translatebot, 'bot', 'chatbot']);
const TEXT_TYPES = ['text', 'text/html'];

/** The first paragraphs of an article's text, up to ARTICLE_EXCERPT characters (the first one at least, cut). */
export function excerpt(text: string): string {
  const paragraphs = text
    .split(/\n{2,}/)
    .map((p) => p.trim())
    .filter(Boolean);
  let out = '';
  for (const p of paragraphs) {
    if (out && out.length + p.length + 2 > ARTICLE_EXCERPT) break;
    out = out ? `${out}\n\n${p}` : p;
  }
  return out.length > ARTICLE_EXCERPT ? `${out.slice(0, ARTICLE_EXCERPT - 1).trimEnd()}…` : out;
}

/** What tells that the account's published articles changed (published, unpublished, edited, deleted). */
export async function articlesSignature(db: DB, accountId: number): Promise<string> {
  const r = await db
    .selectFrom('kb_articles')
    .select([
      sql<number>`count(*)`.as('n'),
      sql<number>`coalesce(max(updated_at), 0)`.as('at'),
      sql<number>`coalesce(sum(id), 0)`.as('ids'),
    ])
    .where('account_id', '=', accountId)
    .where('status', '=', 'published')
    .executeTakeFirst();
  return `${r?.n ?? 0}:${r?.at ?? 0}:${r?.ids ?? 0}`;
}

/** The account's published articles; the link is the public page's (absolute when the install's URL is known). */
export async function articleSources(db: DB, accountId: number, publicUrl: string | undefined): Promise<Source[]> {
  const site = await db.selectFrom('kb_sites').select('token').where('account_id', '=', accountId).executeTakeFirst();
  const rows = await db
    .selectFrom('kb_articles')
    .select(['id', 'type', 'lang', 'slug', 'title', 'body'])
    .where('account_id', '=', accountId)
    .where('status', '=', 'published')
    .orderBy('updated_at', 'desc')
    .orderBy('id', 'desc')
    .limit(MAX_ARTICLES)
    .execute();
  if (rows.length === 0) return [];
  const qa = new Map<number, string>();
  const ids = rows.map((r) => Number(r.id));
  for (let i = 0; i < ids.length; i += 500) {
    const qs = await db
      .selectFrom('kb_questions')
      .select(['article_id', 'question', 'answer'])
      .where('account_id', '=', accountId)
      .where('article_id', 'in', ids.slice(i, i + 500))
      .execute();
    for (const q of qs) qa.set(Number(q.article_id), `${qa.get(Number(q.article_id)) ?? ''} ${q.question} ${q.answer}`);
  }
  return rows.map((r) => {
    const id = Number(r.id);
    const text = markdownToText(r.body);
    const path = site
      ? kbArticlePath({ type: r.type as KbType, lang: r.lang as KbLang, id, slug: r.slug }, site.token)
      : '';
    const link = path && publicUrl ? new URL(path, publicUrl).toString() : path;
    const start = excerpt(text);
    return {
      kind: 'article' as const,
      id,
      title: r.title,
      text: link ? `${start}\n\n${link}` : start,
      ticketId: 0,
      terms: `${r.title} ${r.title} ${text} ${qa.get(id) ?? ''}`,
    };
  });
}

/**
 * The team's past replies with what they answered: in each of the newest MAX_REPLY_TICKETS conversations
 * (not Workspace chats, which have no customer), the customer's messages since the last reply, then a team
 * member's reply to them, make a pair. Found by the question's words, it suggests the reply.
 */
export async function replySources(db: DB, accountId: number): Promise<Source[]> {
  const tickets = await db
    .selectFrom('tickets')
    .select(['id', 'ticket_number'])
    .where('account_id', '=', accountId)
    .where('channel', '<>', WORKSPACE_CHANNEL)
    .where('has_responded', '=', 1)
    .orderBy('updated_at', 'desc')
    .orderBy('id', 'desc')
    .limit(MAX_REPLY_TICKETS)
    .execute();
  const numbers = new Map(tickets.map((t) => [Number(t.id), Number(t.ticket_number)]));
  const ids = [...numbers.keys()];
  const out: Source[] = [];
  for (let i = 0; i < ids.length && out.length < MAX_PAIRS; i += 200) {
    const rows = await db
      .selectFrom('messages')
      .select([
        'id',
        'ticket_id',
        'sender',
        'type',
        sql<string>`substr(message, 1, ${sql.lit(MESSAGE_CAP)})`.as('message'),
      ])
      .where('account_id', '=', accountId)
      .where('ticket_id', 'in', ids.slice(i, i + 200))
      .where('deleted_at', 'is', null)
      .where('type', 'in', TEXT_TYPES)
      .orderBy('ticket_id')
      .orderBy('id')
      .execute();
    let ticket = -1;
    let question = '';
    for (const r of rows) {
      const t = Number(r.ticket_id);
      if (t !== ticket) {
        ticket = t;
        question = '';
      }
      const text = (r.type === 'text/html' ? htmlToText(r.message) : r.message).trim();
      if (r.sender === SENDERS.visitor) {
        question = `${question} ${text}`.slice(0, MESSAGE_CAP);
      } else if (!NOT_TEAM.has(r.sender) && question.trim()) {
        if (text.split(/\s+/).length >= MIN_REPLY_WORDS)
          out.push({
            kind: 'reply',
            id: Number(r.id),
            title: String(numbers.get(t) ?? ''),
            text,
            ticketId: t,
            terms: question,
          });
        question = '';
      }
    }
  }
  return out.slice(0, MAX_PAIRS);
}
