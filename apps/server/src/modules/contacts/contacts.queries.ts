import {
  type ContactDetail,
  type ContactIdentifier,
  type ContactListAnswer,
  type ContactRow,
  DONE_TICKET_STATUSES,
  IDENTIFIER_KINDS,
  WORKSPACE_CHANNEL,
} from '@parley/contracts';
import { type ExpressionBuilder, sql } from 'kysely';
import { type DB, likeEscape, onPostgres } from '../../platform/db/db.js';
import type { Database } from '../../platform/db/schema.js';

type ListQuery = { keyword: string; filter: string; pagination: number; page: number };
type ContactsEb = ExpressionBuilder<Database & { c: Database['contacts'] }, 'c'>;

/** Above every character: `k <= v < k + TOP` holds for the values that start with `k`, byte-wise. */
const TOP = '\u{10FFFF}';

/**
 * The FTS5 query of a keyword's pieces (split at spaces), each a quoted phrase whose last word is a prefix:
 * every contact whose name has the keyword at the start of a word matches it (and a few more, which the LIKE
 * then drops). Null when no piece has a letter or digit to look for.
 */
function ftsQuery(k: string): string | null {
  const pieces = k.split(/\s+/).filter((p) => /[\p{L}\p{N}]/u.test(p));
  return pieces.length === 0 ? null : pieces.map((p) => `"${p.replaceAll('"', '""')}"*`).join(' AND ');
}

/**
 * Contacts of the account that match the keyword (a prefix of a word of the name, or of an address). The ids
 * come from indexes (migration 0036) rather than from a test of every contact: addresses by a byte-wise
 * range, the name by its trigram index (Postgres) or by the FTS5 word index (SQLite).
 */
function matching(db: DB, accountId: number, keyword: string) {
  const k = keyword.trim().toLowerCase();
  const pg = onPostgres(db);
  return (eb: ContactsEb) => {
    if (!k) return sql<boolean>`1 = 1`;
    const prefix = `${likeEscape(k)}%`;
    const nameLike = (col: string) =>
      sql<boolean>`(${sql.ref(col)} like ${prefix} escape '!' or ${sql.ref(col)} like ${`% ${prefix}`} escape '!')`;
    const byAddress = eb
      .selectFrom('contact_identifiers as ci')
      .select('ci.contact_id as id')
      .where('ci.account_id', '=', accountId)
      .where('ci.kind', 'in', IDENTIFIER_KINDS)
      .where(
        pg
          ? sql<boolean>`ci.value ~>=~ ${k} and ci.value ~<~ ${k + TOP}`
          : sql<boolean>`ci.value >= ${k} and ci.value < ${k + TOP}`,
      )
      .where(sql<boolean>`ci.value like ${prefix} escape '!'`);
    // SQLite: the FTS5 word-prefix matches are a superset, which the LIKE narrows to the same answer.
    const fts = pg ? null : ftsQuery(k);
    const byName = eb
      .selectFrom('contacts as n')
      .select('n.id')
      .where('n.account_id', '=', accountId)
      .$if(fts !== null, (w) =>
        w.where('n.id', 'in', sql<number>`(select rowid from contacts_fts where contacts_fts match ${fts})`),
      )
      .where(nameLike('n.name_lower'));
    return eb('c.id', 'in', byName.union(byAddress));
  };
}

function filtered(filter: string) {
  return (eb: ContactsEb) => {
    const has = (kinds: readonly string[]) =>
      eb.exists(
        eb
          .selectFrom('contact_identifiers as ci')
          .select('ci.id')
          .whereRef('ci.contact_id', '=', 'c.id')
          .where('ci.kind', 'in', kinds),
      );
    switch (filter) {
      case 'email':
        return has(['email']);
      case 'phone':
        return has(['phone', 'whatsapp']);
      case 'none':
        return eb.not(has(IDENTIFIER_KINDS));
      case 'open':
        // The open tickets each contact has, kept by triggers (migration 0059); written as the predicate of
        // `contacts_open_idx` so SQLite can use that partial index.
        return sql<boolean>`c.open_tickets > 0`;
      default:
        return sql<boolean>`1 = 1`;
    }
  };
}

const identifierRow = (r: {
  id: number;
  kind: string;
  value: string;
  verified: number;
  created_at: number;
}): ContactIdentifier => ({
  id: Number(r.id),
  kind: r.kind as ContactIdentifier['kind'],
  value: r.value,
  verified: Number(r.verified) === 1,
  created_at: Number(r.created_at),
});

/** CONTACT-10: `uid` is the contact's e-mail, else its phone, else its first address, else its id. */
function uidOf(id: number, identifiers: ContactIdentifier[]): string {
  const first = (kinds: string[]) => identifiers.find((i) => kinds.includes(i.kind))?.value;
  return first(['email']) ?? first(['phone', 'whatsapp']) ?? identifiers[0]?.value ?? String(id);
}

/** The identifiers and conversation counts of the given contacts, and each as a list row. */
async function rowsOf(
  db: DB,
  accountId: number,
  contacts: { id: number; name: string; salutation: string; last_seen_at: number; created_at: number }[],
): Promise<ContactRow[]> {
  if (contacts.length === 0) return [];
  const ids = contacts.map((c) => Number(c.id));
  const identifiers = await db
    .selectFrom('contact_identifiers')
    .select(['id', 'contact_id', 'kind', 'value', 'verified', 'created_at'])
    .where('account_id', '=', accountId)
    .where('contact_id', 'in', ids)
    .orderBy('id')
    .execute();
  const counts = await db
    .selectFrom('tickets')
    .select((eb) => [
      'contact_id',
      eb.fn.countAll<number>().as('n'),
      eb.fn.sum<number>(eb.case().when('closed', 'in', DONE_TICKET_STATUSES).then(0).else(1).end()).as('open'),
    ])
    .where('account_id', '=', accountId)
    .where('contact_id', 'in', ids)
    .where('channel', '<>', WORKSPACE_CHANNEL)
    .groupBy('contact_id')
    .execute();
  return contacts.map((c) => {
    const own = identifiers.filter((i) => Number(i.contact_id) === Number(c.id)).map(identifierRow);
    const count = counts.find((n) => Number(n.contact_id) === Number(c.id));
    return {
      id: Number(c.id),
      uid: uidOf(Number(c.id), own),
      name: c.name,
      salutation: c.salutation,
      identifiers: own,
      conversations: Number(count?.n ?? 0),
      open: Number(count?.open ?? 0),
      last_seen_at: Number(c.last_seen_at),
      created_at: Number(c.created_at),
    };
  });
}

const DAY_MS = 86_400_000;
/** From this offset on, a page of the whole list is reached by key through `contact_days`. */
const SEEK_FROM = 1_000;

/**
 * Where the page at `offset` of the whole list (last contact first) starts, by key: the day (migration 0058,
 * `contact_days`) that holds the list's entry number `offset`, as the `last_seen_at` its day ends before and
 * how many contacts come before that day (the later days). The page is then the entries of the list index
 * below that key, past `offset - skipped` of them: an OFFSET over at most one day's contacts instead of every
 * contact before the page, with the same answer. 'past the end' when the list is shorter; null for a day
 * before 1970 (integer division rounds toward zero there), which takes the plain OFFSET.
 */
async function seekDay(
  db: DB,
  accountId: number,
  offset: number,
): Promise<{ before: number; skipped: number } | 'past the end' | null> {
  const r = await sql<{ day: number; skipped: number }>`select day, cum - n as skipped from (
      select day, n, sum(n) over (order by day desc rows between unbounded preceding and current row) as cum
      from contact_days where account_id = ${accountId}
    ) d where cum > ${offset} order by day desc limit 1`.execute(db);
  const hit = r.rows[0];
  if (!hit) return 'past the end';
  const day = Number(hit.day);
  return day < 0 ? null : { before: (day + 1) * DAY_MS, skipped: Number(hit.skipped) };
}

/**
 * `GET /api/contacts/list`: one page of the account's contacts (merged ones left out), last seen first. A deep
 * page of the whole list (no keyword, no filter) is reached by key (`seekDay`); a keyword's or a filter's
 * contacts are counted anyway, and paged by OFFSET.
 */
export async function listContacts(
  db: DB,
  accountId: number,
  q: ListQuery,
): Promise<Omit<ContactListAnswer, 'result'>> {
  const base = db
    .selectFrom('contacts as c')
    .where('c.account_id', '=', accountId)
    .where('c.merged_into', 'is', null)
    .where(matching(db, accountId, q.keyword))
    .where(filtered(q.filter));
  const plain = q.keyword.trim() === '' && q.filter === 'all';
  const offset = (q.page - 1) * q.pagination;
  const rows = base
    .select(['c.id', 'c.name', 'c.salutation', 'c.last_seen_at', 'c.created_at'])
    .orderBy('c.last_seen_at', 'desc')
    .orderBy('c.id', 'desc')
    .limit(q.pagination);
  const readPage = async () => {
    if (!plain || offset < SEEK_FROM) return rows.offset(offset).execute();
    const seek = await seekDay(db, accountId, offset);
    if (seek === 'past the end') return [];
    if (seek === null) return rows.offset(offset).execute();
    return rows
      .where('c.last_seen_at', '<', seek.before)
      .offset(offset - seek.skipped)
      .execute();
  };
  const [page, total] = await Promise.all([
    readPage(),
    // Every contact not merged away, or those with an open conversation: the counters of migrations 0036
    // and 0059 rather than a count of each of them.
    plain || (q.keyword.trim() === '' && q.filter === 'open')
      ? sql<{ n: number }>`select ${sql.raw(plain ? 'n' : 'open_n')} as n from contact_counts
          where account_id = ${accountId}`
          .execute(db)
          .then((r) => r.rows[0] ?? { n: 0 })
      : base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    contacts: await rowsOf(db, accountId, page),
    total: Number(total.n),
    page: q.page,
    pagination: q.pagination,
  };
}

/** A contact of the account (merged ones too: the page says where it went), or null. */
export async function contactRecord(db: DB, accountId: number, id: number) {
  return db
    .selectFrom('contacts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * A contact's page: its fields, addresses, every conversation on every channel (newest first, the channels
 * the reader may read), and the merges into it that can still be undone (newest first).
 */
export async function contactDetail(
  db: DB,
  accountId: number,
  id: number,
  readableChannels: string[],
): Promise<ContactDetail | null> {
  const c = await contactRecord(db, accountId, id);
  if (!c) return null;
  const [row] = await rowsOf(db, accountId, [c]);
  const conversations = await db
    .selectFrom('tickets')
    .select(['id', 'ticket_number', 'title', 'channel', 'closed', 'created_at', 'updated_at'])
    .where('account_id', '=', accountId)
    .where('contact_id', '=', id)
    .where('channel', 'in', readableChannels.length > 0 ? readableChannels : [''])
    .orderBy('id', 'desc')
    .limit(500)
    .execute();
  const merges = await db
    .selectFrom('contact_merges as m')
    .innerJoin('contacts as o', (j) => j.onRef('o.id', '=', 'm.merged_id').onRef('o.account_id', '=', 'm.account_id'))
    .leftJoin('users as u', (j) => j.onRef('u.id', '=', 'm.created_by').onRef('u.account_id', '=', 'm.account_id'))
    .select([
      'm.id',
      'm.merged_id',
      'o.name',
      'u.name as by_name',
      'u.username',
      'm.created_at',
      'm.identifier_ids',
      'm.ticket_ids',
    ])
    .where('m.account_id', '=', accountId)
    .where('m.kept_id', '=', id)
    .where('m.undone_at', 'is', null)
    .orderBy('m.id', 'desc')
    .execute();
  return {
    ...row!,
    id_type: c.id_type,
    id_number: c.id_number,
    notes: c.notes,
    merged_into: c.merged_into === null ? null : Number(c.merged_into),
    updated_at: Number(c.updated_at),
    conversations_list: conversations.map((t) => ({
      id: Number(t.id),
      ticket_number: Number(t.ticket_number),
      title: t.title,
      channel: t.channel,
      closed: Number(t.closed),
      created_at: Number(t.created_at),
      updated_at: Number(t.updated_at),
    })),
    merges: merges.map((m) => ({
      id: Number(m.id),
      merged_id: Number(m.merged_id),
      merged_name: m.name,
      by: m.by_name || m.username || '',
      created_at: Number(m.created_at),
      identifiers: (JSON.parse(m.identifier_ids) as number[]).length,
      conversations: (JSON.parse(m.ticket_ids) as number[]).length,
    })),
  };
}

/** Every contact of the account that is not merged away, with its addresses, for the CSV export. */
export async function* allContacts(db: DB, accountId: number) {
  let after = 0;
  for (;;) {
    const batch = await db
      .selectFrom('contacts')
      .select(['id', 'name', 'salutation', 'id_type', 'id_number', 'notes'])
      .where('account_id', '=', accountId)
      .where('merged_into', 'is', null)
      .where('id', '>', after)
      .orderBy('id')
      .limit(1000)
      .execute();
    if (batch.length === 0) return;
    const identifiers = await db
      .selectFrom('contact_identifiers')
      .select(['contact_id', 'kind', 'value'])
      .where('account_id', '=', accountId)
      .where(
        'contact_id',
        'in',
        batch.map((c) => c.id),
      )
      .orderBy('id')
      .execute();
    for (const c of batch) {
      const own = identifiers.filter((i) => Number(i.contact_id) === Number(c.id));
      yield {
        ...c,
        email: own.find((i) => i.kind === 'email')?.value ?? '',
        phone: own.find((i) => i.kind === 'phone' || i.kind === 'whatsapp')?.value ?? '',
      };
    }
    after = Number(batch[batch.length - 1]!.id);
  }
}

/**
 * SEARCH-09: the contacts (not merged away) whose name has a word starting with the keyword, or one of whose
 * addresses starts with it; last contact first, at most `limit`.
 */
export async function findContacts(db: DB, accountId: number, keyword: string, limit: number) {
  const rows = await db
    .selectFrom('contacts as c')
    .select(['c.id', 'c.name', 'c.salutation', 'c.last_seen_at', 'c.created_at'])
    .where('c.account_id', '=', accountId)
    .where('c.merged_into', 'is', null)
    .where(matching(db, accountId, keyword))
    .orderBy('c.last_seen_at', 'desc')
    .orderBy('c.id', 'desc')
    .limit(limit)
    .execute();
  return (await rowsOf(db, accountId, rows)).map((c) => ({
    uid: c.uid,
    id: c.id,
    name: c.name,
    salutation: c.salutation,
  }));
}
