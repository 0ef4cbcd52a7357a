import {
  CHANNEL_CODES,
  ENCRYPTION_STRINGS,
  LIVECHAT_CODES,
  SEARCH_MAX_WORDS,
  SEARCH_MIN_PREFIX,
  SEARCH_PAGE_SIZE,
  SEARCH_RANKED_MAX,
  type SearchAgent,
  type SearchAnswer,
  type SearchContact,
  type SearchLabel,
  type SearchMessage,
  type SearchQuery,
  type SearchTicket,
  WORKSPACE_CHANNEL,
} from '@parley/contracts';
import { type RawBuilder, sql } from 'kysely';
import { type DB, onPostgres } from '../../platform/db/db.js';
import { findContacts } from '../contacts/index.js';
import type { Conversations } from '../messages/index.js';

/** Who searches: results are the account's, and only conversations this user may read. */
export interface Searcher {
  accountId: number;
  userId: number;
  /** The user may see contacts (not hidden by hide_contacts): the Contact group is theirs. */
  contacts: boolean;
}

/** Marks the database puts around a match; private-use characters, replaced after the text is escaped. */
const OPEN = '\uE000';
const CLOSE = '\uE001';

/**
 * The words of what was typed: letters and digits only, lower case, at most SEARCH_MAX_WORDS of at most 64
 * characters. User text never reaches the FTS syntax itself: quotes, `*`, `-`, `:`, NEAR, OR are either
 * dropped (punctuation) or become plain words that the query quotes.
 */
export function searchWords(text: string | undefined): string[] {
  if (!text) return [];
  const words =
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.slice(0, SEARCH_MAX_WORDS).map((w) => w.slice(0, 64));
}

/** A word long enough to be searched as a prefix (SEARCH_MIN_PREFIX); a shorter one is matched whole. */
const isPrefix = (w: string) => [...w].length >= SEARCH_MIN_PREFIX;
/** FTS5: every word as a quoted prefix term (a one-letter word as a whole word), all required. */
export const ftsMatch = (words: string[]) => words.map((w) => (isPrefix(w) ? `"${w}"*` : `"${w}"`)).join(' ');
/** Postgres: every word as a prefix lexeme (a one-letter word whole), all required (letters and digits only). */
export const tsQuery = (words: string[]) => words.map((w) => (isPrefix(w) ? `'${w}':*` : `'${w}'`)).join(' & ');

/**
 * A relevance score of a text for the words, computed here for the newest SEARCH_RANKED_MAX matches of a
 * search that matched more: BM25's term-frequency and length part (k1 1.2, b 0.75) summed over the words, a
 * word counting every token that starts with it (or equals it, when shorter than SEARCH_MIN_PREFIX). Every
 * candidate holds every word, so the part BM25 adds per word (its rarity) is the same for all and left out.
 */
export function rankCandidates<T extends { text: string; created_at: number; id: number }>(
  rows: T[],
  words: string[],
): T[] {
  const folded = words.map(fold);
  const prefix = folded.map(isPrefix);
  // The whole text folded once (a token at a time is ten times slower over a thousand rows).
  const tokenized = rows.map((r) =>
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range, for the fast path
    /^[\x00-\x7f]*$/.test(r.text)
      ? (r.text.toLowerCase().match(/[a-z0-9]+/g) ?? [])
      : (fold(r.text).match(/[\p{L}\p{N}]+/gu) ?? []),
  );
  const avg = tokenized.reduce((n, t) => n + t.length, 0) / Math.max(1, tokenized.length) || 1;
  const scored = rows.map((r, i) => {
    const tokens = tokenized[i]!;
    const tf = new Array<number>(folded.length).fill(0);
    for (const t of tokens)
      for (let k = 0; k < folded.length; k++) if (prefix[k] ? t.startsWith(folded[k]!) : t === folded[k]) tf[k]!++;
    const norm = 1.2 * (0.25 + (0.75 * tokens.length) / avg);
    return { r, s: tf.reduce((sum, n) => sum + (n * 2.2) / (n + norm), 0) };
  });
  return scored
    .sort((x, y) => y.s - x.s || Number(y.r.created_at) - Number(x.r.created_at) || Number(y.r.id) - Number(x.r.id))
    .map((x) => x.r);
}

/** Escapes HTML, then turns the database's match marks into `<mark>`: the only markup a snippet carries. */
export function highlight(raw: string): string {
  return raw
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
    .replaceAll(OPEN, '<mark>')
    .replaceAll(CLOSE, '</mark>');
}

/** A LIKE pattern for "starts with", its wildcards escaped (used with `escape '\'`). */
const startsWith = (s: string) => `${s.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
const like = (col: RawBuilder<unknown>, s: string) => sql`lower(${col}) like ${startsWith(s)} escape '\\'`;

/**
 * Which tickets the user may read, as SQL over the ticket alias `t`: the channels Conversations has a rule
 * for, and a Workspace chat only for its members (the Workspace rule). Each row of a page is then checked
 * with `Conversations.canRead` itself, so a rule stricter than this filter still decides.
 */
function readable(conversations: Conversations, who: Searcher) {
  const channels = CHANNEL_CODES.filter((c) => conversations.covers(c));
  return sql`t.account_id = ${who.accountId} and t.channel in (${sql.join(channels)})
    and (t.channel <> ${WORKSPACE_CHANNEL} or exists (select 1 from chat_members cm
      where cm.account_id = t.account_id and cm.ticket_id = t.id and cm.user_id = ${who.userId}))`;
}

interface Plan {
  /** Free text: searched in messages and tickets. */
  words: string[];
  /** `message:` words: messages only. */
  messageWords: string[];
  contactWords: string[];
  from: string;
  label: string;
  number: number | null;
}

function plan(q: SearchQuery): Plan {
  const number = q.ticket?.trim() ? Number(q.ticket.trim()) : null;
  return {
    words: searchWords(q.entity),
    messageWords: searchWords(q.message),
    contactWords: searchWords(q.contact),
    from: (q.username ?? '').trim(),
    label: (q.label ?? '').trim(),
    number,
  };
}

/** Tickets whose customer (name, e-mail, phone) has every word as a prefix, as SQL over `t`. */
function contactMatch(db: DB, accountId: number, words: string[]) {
  if (onPostgres(db)) return sql`to_tsvector('simple', ${CONTACT_TEXT}) @@ to_tsquery('simple', ${tsQuery(words)})`;
  // Column filter: the words must be in name, email or phone (not the title).
  return sql`t.id in (select rowid from tickets_fts where tickets_fts match ${`{name email phone} : (${ftsMatch(words)})`})
    and t.account_id = ${accountId}`;
}
const CONTACT_TEXT = sql.raw(`coalesce(t.name, '') || ' ' || coalesce(t.email, '') || ' ' || coalesce(t.phone, '')`);

/** The label filter (an exact name, any case, of a label not removed), as SQL over `t`. */
const labelMatch = (accountId: number, label: string) =>
  sql`exists (select 1 from ticket_labels tl join labels l on l.id = tl.label_id and l.account_id = tl.account_id
    where tl.account_id = ${accountId} and tl.ticket_id = t.id and l.removed = 0 and lower(l.name) = ${label.toLowerCase()})`;

/**
 * The count of all matches. A page query carries it (`count(*) over ()`, one pass over the matches) where it
 * can; FTS5 cannot (bm25() has no cursor inside a window query), so SQLite's full-text pages leave it null
 * and it is counted on its own. A page past the end carries nothing either.
 */
async function total(
  rows: { total: number | string | null }[],
  offset: number,
  countRows: () => Promise<number>,
): Promise<number> {
  const first = rows[0];
  if (first && first.total !== null) return Number(first.total);
  if (!first && offset === 0) return 0;
  return countRows();
}

/** Lower case without diacritics, as unicode61 `remove_diacritics 2` reads a word. */
const fold = (w: string) => w.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * SQLite: a snippet of `text` around the first word that starts with one of `words`, the matching words
 * marked, about 24 words long. Made here for the page's rows only: FTS5's snippet() in the page query would
 * be made for every match before the sort, and a lookup per row runs the whole match again.
 */
export function snippetOf(text: string, words: string[], size = 24): string {
  const folded = words.map(fold);
  const tokens = [...text.matchAll(/[\p{L}\p{N}]+/gu)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
    hit: folded.some((w) => fold(m[0]).startsWith(w)),
  }));
  const firstHit = Math.max(
    0,
    tokens.findIndex((t) => t.hit),
  );
  const from = Math.max(0, Math.min(firstHit - 6, tokens.length - size));
  const to = Math.min(tokens.length, from + size);
  if (tokens.length === 0) return text.slice(0, 200);
  const a = from === 0 ? 0 : tokens[from]!.start;
  const b = to === tokens.length ? text.length : tokens[to - 1]!.end;
  let out = from === 0 ? '' : '…';
  let at = a;
  for (const t of tokens.slice(from, to))
    if (t.hit) {
      out += `${text.slice(at, t.start)}${OPEN}${text.slice(t.start, t.end)}${CLOSE}`;
      at = t.end;
    }
  out += text.slice(at, b);
  return to === tokens.length ? out : `${out}…`;
}

/** The filters every ticket-side row must pass (contact, label, number), as SQL over `t`. */
function ticketFilters(db: DB, accountId: number, p: Plan) {
  const out: RawBuilder<unknown>[] = [];
  if (p.contactWords.length > 0) out.push(contactMatch(db, accountId, p.contactWords));
  if (p.label) out.push(labelMatch(accountId, p.label));
  if (p.number !== null) out.push(sql`t.ticket_number = ${p.number}`);
  return out.length > 0 ? sql`and ${sql.join(out, sql` and `)}` : sql``;
}

async function searchMessages(
  db: DB,
  conversations: Conversations,
  who: Searcher,
  p: Plan,
  offset: number,
): Promise<{ rows: SearchMessage[]; count: number; capped: boolean }> {
  const words = [...p.words, ...p.messageWords].slice(0, SEARCH_MAX_WORDS);
  // The Message group needs words or a sender; filters alone (a number, a label) list tickets, not messages.
  if (words.length === 0 && !p.from) return { rows: [], count: 0, capped: false };
  const pg = onPostgres(db);
  // CRYPT-11: an encrypted conversation's messages are ciphertext (an envelope): never searched.
  const where = sql`${readable(conversations, who)} and m.account_id = ${who.accountId} and m.deleted_at is null
    and t.encryption_method = ''
    ${ticketFilters(db, who.accountId, p)}
    ${p.from ? sql`and (${like(sql`m.sender`, p.from)} or ${like(sql`m.sender_name`, p.from)})` : sql``}`;
  type Row = {
    id: number;
    ticket_id: number;
    channel: string;
    ticket_number: number;
    snip: string;
    sender: string;
    sender_name: string;
    created_at: number;
    total: number | string | null;
  };
  let rows: Row[];
  let countRows: () => Promise<number>;
  let capped = false;
  if (words.length === 0) {
    // A sender only: the newest of their messages, the start of each as the snippet.
    rows = (
      await sql<Row>`select m.id, m.ticket_id, t.channel, t.ticket_number, substr(m.message, 1, 200) as snip,
          m.sender, m.sender_name, m.created_at, count(*) over () as total
        from messages m join tickets t on t.id = m.ticket_id
        where ${where} order by m.created_at desc, m.id desc limit ${SEARCH_PAGE_SIZE} offset ${offset}`.execute(db)
    ).rows;
    countRows = async () =>
      Number(
        (
          await sql<{ n: number }>`select count(*) as n from messages m join tickets t on t.id = m.ticket_id
          where ${where}`.execute(db)
        ).rows[0]?.n ?? 0,
      );
  } else {
    const q = tsQuery(words);
    const match = sql`to_tsvector('simple', m.message) @@ to_tsquery('simple', ${q})`;
    // The newest matches first, one more than are ranked: a search that matches more than SEARCH_RANKED_MAX
    // ranks these here instead of every match (on SQLite FTS5 reads the doclist newest first and stops; on
    // Postgres the newest rows are walked by id while matches are common, the GIN index used while rare).
    const newest = pg
      ? sql`select m.id, m.ticket_id, t.channel, t.ticket_number, m.sender, m.sender_name, m.created_at,
            substr(m.message, 1, 4000) as text
          from messages m join tickets t on t.id = m.ticket_id
          where ${match} and ${where} order by m.id desc limit ${SEARCH_RANKED_MAX + 1}`
      : sql`select m.id, m.ticket_id, t.channel, t.ticket_number, m.sender, m.sender_name, m.created_at,
            substr(m.message, 1, 4000) as text
          from messages_fts f join messages m on m.id = f.rowid join tickets t on t.id = m.ticket_id
          where messages_fts match ${ftsMatch(words)} and ${where} order by f.rowid desc limit ${SEARCH_RANKED_MAX + 1}`;
    const candidates = (await sql<Row & { text: string }>`${newest}`.execute(db)).rows;
    if (candidates.length > SEARCH_RANKED_MAX) {
      capped = true;
      rows = rankCandidates(candidates.slice(0, SEARCH_RANKED_MAX), words)
        .slice(offset, offset + SEARCH_PAGE_SIZE)
        .map((r) => ({ ...r, snip: snippetOf(r.text, words), total: SEARCH_RANKED_MAX }));
      countRows = async () => SEARCH_RANKED_MAX;
    } else if (candidates.length === 0) {
      rows = [];
      countRows = async () => 0;
    } else if (pg) {
      // The headline is made for the page's rows only, after the sort and the limit.
      rows = (
        await sql<Row>`select s.id, s.ticket_id, s.channel, s.ticket_number, s.sender, s.sender_name, s.created_at,
            ${candidates.length} as total,
            ts_headline('simple', s.message, to_tsquery('simple', ${q}),
              ${`StartSel=${OPEN}, StopSel=${CLOSE}, MaxWords=24, MinWords=12, MaxFragments=1, FragmentDelimiter=" … "`}) as snip
          from (select m.id, m.ticket_id, t.channel, t.ticket_number, m.message, m.sender, m.sender_name, m.created_at,
              ts_rank(to_tsvector('simple', m.message), to_tsquery('simple', ${q})) as r
            from messages m join tickets t on t.id = m.ticket_id
            where m.id in (${sql.join(candidates.map((c) => Number(c.id)))}) and ${where}
            order by r desc, m.created_at desc, m.id desc limit ${SEARCH_PAGE_SIZE} offset ${offset}) s
          order by s.r desc, s.created_at desc, s.id desc`.execute(db)
      ).rows;
      countRows = async () => candidates.length;
    } else {
      rows = (
        await sql<Row>`select m.id, m.ticket_id, t.channel, t.ticket_number, m.sender, m.sender_name, m.created_at,
            ${candidates.length} as total, m.message as snip
          from messages_fts f join messages m on m.id = f.rowid join tickets t on t.id = m.ticket_id
          where messages_fts match ${ftsMatch(words)} and ${where}
          order by bm25(messages_fts), m.created_at desc, m.id desc
          limit ${SEARCH_PAGE_SIZE} offset ${offset}`.execute(db)
      ).rows;
      for (const r of rows) r.snip = snippetOf(r.snip, words);
      countRows = async () => candidates.length;
    }
  }
  const count = await total(rows, offset, countRows);
  const out: SearchMessage[] = [];
  for (const r of rows)
    if (
      await conversations.canRead(
        db,
        { id: Number(r.ticket_id), accountId: who.accountId, channel: r.channel },
        who.userId,
      )
    )
      out.push({
        id: Number(r.id),
        ticket_id: Number(r.ticket_id),
        channel: r.channel,
        ticket_number: Number(r.ticket_number),
        message: highlight(r.snip ?? ''),
        sender: r.sender,
        sender_name: r.sender_name,
        created_at: Number(r.created_at),
      });
  return { rows: out, count, capped };
}

/** Tickets (`liveChat` false) or live chats (true) that match. */
async function searchTickets(
  db: DB,
  conversations: Conversations,
  who: Searcher,
  p: Plan,
  offset: number,
  liveChat: boolean,
): Promise<{ rows: SearchTicket[]; count: number; capped: boolean }> {
  // `from:` and `message:` are about messages: the ticket groups answer nothing for them.
  if (p.from || p.messageWords.length > 0) return { rows: [], count: 0, capped: false };
  if (p.words.length === 0 && p.contactWords.length === 0 && !p.label && p.number === null)
    return { rows: [], count: 0, capped: false };
  const pg = onPostgres(db);
  const kind = liveChat
    ? sql`t.channel in (${sql.join(LIVECHAT_CODES)})`
    : sql`t.channel not in (${sql.join(LIVECHAT_CODES)})`;
  const where = sql`${readable(conversations, who)} and ${kind} ${ticketFilters(db, who.accountId, p)}`;
  type Row = {
    id: number;
    ticket_number: number;
    title: string;
    channel: string;
    name: string;
    closed: number;
    updated_at: number;
    snip: string;
    total: number | string | null;
  };
  let rows: Row[];
  let countRows: () => Promise<number>;
  let capped = false;
  const cols = sql`t.id, t.ticket_number, t.title, t.channel, t.name, t.closed, t.updated_at`;
  if (p.words.length === 0) {
    rows = (
      await sql<Row>`select ${cols}, t.title as snip, count(*) over () as total from tickets t where ${where}
        order by t.updated_at desc, t.id desc limit ${SEARCH_PAGE_SIZE} offset ${offset}`.execute(db)
    ).rows;
    countRows = async () =>
      Number(
        (await sql<{ n: number }>`select count(*) as n from tickets t where ${where}`.execute(db)).rows[0]?.n ?? 0,
      );
  } else {
    const q = tsQuery(p.words);
    const match = sql`to_tsvector('simple', ${TICKET_SEARCH_TEXT_T}) @@ to_tsquery('simple', ${q})`;
    const text = sql`coalesce(t.title, '') || ' · ' || coalesce(t.name, '') || ' · ' || coalesce(t.email, '') || ' · ' || coalesce(t.phone, '')`;
    // As for messages: the newest SEARCH_RANKED_MAX + 1 matches first; more than that are ranked here.
    const newest = pg
      ? sql`select ${cols}, ${text} as text, t.updated_at as created_at from tickets t
          where ${match} and ${where} order by t.id desc limit ${SEARCH_RANKED_MAX + 1}`
      : sql`select ${cols}, ${text} as text, t.updated_at as created_at from tickets_fts f join tickets t on t.id = f.rowid
          where tickets_fts match ${ftsMatch(p.words)} and ${where} order by f.rowid desc limit ${SEARCH_RANKED_MAX + 1}`;
    const candidates = (await sql<Row & { text: string; created_at: number }>`${newest}`.execute(db)).rows;
    if (candidates.length > SEARCH_RANKED_MAX) {
      capped = true;
      rows = rankCandidates(candidates.slice(0, SEARCH_RANKED_MAX), p.words)
        .slice(offset, offset + SEARCH_PAGE_SIZE)
        .map((r) => ({ ...r, snip: snippetOf(r.text, p.words), total: SEARCH_RANKED_MAX }));
      countRows = async () => SEARCH_RANKED_MAX;
    } else if (candidates.length === 0) {
      rows = [];
      countRows = async () => 0;
    } else if (pg) {
      rows = (
        await sql<Row>`select s.id, s.ticket_number, s.title, s.channel, s.name, s.closed, s.updated_at,
            ${candidates.length} as total,
            ts_headline('simple', s.text, to_tsquery('simple', ${q}),
              ${`StartSel=${OPEN}, StopSel=${CLOSE}, MaxWords=24, MinWords=12`}) as snip
          from (select ${cols}, ${TICKET_SEARCH_TEXT_T} as text,
              ts_rank(to_tsvector('simple', ${TICKET_SEARCH_TEXT_T}), to_tsquery('simple', ${q})) as r
            from tickets t where t.id in (${sql.join(candidates.map((c) => Number(c.id)))}) and ${where}
            order by r desc, t.updated_at desc, t.id desc limit ${SEARCH_PAGE_SIZE} offset ${offset}) s
          order by s.r desc, s.updated_at desc, s.id desc`.execute(db)
      ).rows;
      countRows = async () => candidates.length;
    } else {
      rows = (
        await sql<Row>`select ${cols}, ${candidates.length} as total, ${text} as snip
          from tickets_fts f join tickets t on t.id = f.rowid
          where tickets_fts match ${ftsMatch(p.words)} and ${where}
          order by bm25(tickets_fts), t.updated_at desc, t.id desc limit ${SEARCH_PAGE_SIZE} offset ${offset}`.execute(
          db,
        )
      ).rows;
      for (const r of rows) r.snip = snippetOf(r.snip, p.words);
      countRows = async () => candidates.length;
    }
  }
  const count = await total(rows, offset, countRows);
  const out: SearchTicket[] = [];
  for (const r of rows)
    if (await conversations.canRead(db, { id: Number(r.id), accountId: who.accountId, channel: r.channel }, who.userId))
      out.push({
        id: Number(r.id),
        ticket_number: Number(r.ticket_number),
        title: r.title,
        channel: r.channel,
        name: r.name,
        closed: Number(r.closed),
        updated_at: Number(r.updated_at),
        snippet: highlight(r.snip ?? ''),
      });
  return { rows: out, count, capped };
}
/** The ticket text of the migration's index, over the alias `t` (Postgres uses the index only for the same expression). */
const TICKET_SEARCH_TEXT_T = sql.raw(
  `coalesce(t.title, '') || ' ' || coalesce(t.name, '') || ' ' || coalesce(t.email, '') || ' ' || coalesce(t.phone, '')`,
);

/** Labels whose name starts with the `label:` term, or else with the free text. */
async function searchLabels(db: DB, who: Searcher, q: SearchQuery): Promise<SearchLabel[]> {
  const term = (q.label ?? q.entity ?? '').trim();
  if (!term) return [];
  const rows = await sql<{ id: number; name: string; color: string }>`select id, name, color from labels
    where account_id = ${who.accountId} and removed = 0 and ${like(sql`name`, term)}
    order by name limit ${SEARCH_PAGE_SIZE}`.execute(db);
  return rows.rows.map((r) => ({ id: Number(r.id), name: r.name, color: r.color }));
}

/** Agents whose username or name starts with the `from:` term, or else with the free text. */
async function searchAgents(db: DB, who: Searcher, q: SearchQuery): Promise<SearchAgent[]> {
  const term = (q.username ?? q.entity ?? '').trim();
  if (!term) return [];
  const rows = await sql<{ id: number; name: string; username: string }>`select id, name, username from users
    where account_id = ${who.accountId} and active = 1 and (${like(sql`username`, term)} or ${like(sql`name`, term)})
    order by username limit ${SEARCH_PAGE_SIZE}`.execute(db);
  return rows.rows.map((r) => ({ id: Number(r.id), name: r.name, username: r.username }));
}

/**
 * SEARCH-09: contacts whose name has a word starting with the `contact:` words (or else the free text's), or
 * an address starting with them: `uid` the e-mail, else the phone; `id` the contact's (its page opens).
 */
async function searchContacts(db: DB, who: Searcher, p: Plan): Promise<SearchContact[]> {
  const words = p.contactWords.length > 0 ? p.contactWords : p.words;
  if (words.length === 0 || !who.contacts) return [];
  return findContacts(db, who.accountId, words.join(' '), SEARCH_PAGE_SIZE);
}

/** SEARCH-08: one page of every group. */
export async function search(
  db: DB,
  conversations: Conversations,
  who: Searcher,
  q: SearchQuery,
): Promise<Omit<SearchAnswer, 'result'>> {
  const p = plan(q);
  const messages = await searchMessages(db, conversations, who, p, q.search_message_index);
  const tickets = await searchTickets(db, conversations, who, p, q.search_index, false);
  const chats = await searchTickets(db, conversations, who, p, q.search_index, true);
  return {
    post: tickets.rows,
    postCount: tickets.count,
    message: messages.rows,
    messageCount: messages.count,
    liveChat: chats.rows,
    liveChatCount: chats.count,
    label: await searchLabels(db, who, q),
    contact: await searchContacts(db, who, p),
    agent: await searchAgents(db, who, q),
    ...(tickets.capped ? { postCountCapped: true } : {}),
    ...(messages.capped ? { messageCountCapped: true } : {}),
    ...(chats.capped ? { liveChatCountCapped: true } : {}),
    ...((await skippedEncrypted(db, who, p)) ? { encrypted: ENCRYPTION_STRINGS.searchSkipped } : {}),
  };
}

/** Whether a message search left out encrypted conversations of the account (the answer then says so). */
async function skippedEncrypted(db: DB, who: Searcher, p: Plan): Promise<boolean> {
  if ([...p.words, ...p.messageWords].length === 0 && !p.from) return false;
  const row = await db
    .selectFrom('tickets')
    .select('id')
    .where('account_id', '=', who.accountId)
    .where('encryption_method', '!=', '')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
