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
import { type DB, likeEscape } from '../../platform/db/db.js';
import type { Database } from '../../platform/db/schema.js';

type ListQuery = { keyword: string; filter: string; pagination: number; page: number };
type ContactsEb = ExpressionBuilder<Database & { c: Database['contacts'] }, 'c'>;

/** Contacts of the account that match the keyword (a prefix of a word of the name, or of an address). */
function matching(accountId: number, keyword: string) {
  const k = keyword.trim().toLowerCase();
  return (eb: ContactsEb) => {
    if (!k) return sql<boolean>`1 = 1`;
    const prefix = `${likeEscape(k)}%`;
    return eb.or([
      sql<boolean>`c.name_lower like ${prefix} escape '!'`,
      sql<boolean>`c.name_lower like ${`% ${prefix}`} escape '!'`,
      eb(
        'c.id',
        'in',
        eb
          .selectFrom('contact_identifiers as ci')
          .select('ci.contact_id')
          .where('ci.account_id', '=', accountId)
          .where('ci.kind', 'in', IDENTIFIER_KINDS)
          .where(sql<boolean>`ci.value like ${prefix} escape '!'`),
      ),
    ]);
  };
}

function filtered(accountId: number, filter: string) {
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
        return eb.exists(
          eb
            .selectFrom('tickets as t')
            .select('t.id')
            .where('t.account_id', '=', accountId)
            .whereRef('t.contact_id', '=', 'c.id')
            .where('t.closed', 'not in', DONE_TICKET_STATUSES),
        );
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

/** `GET /api/contacts/list`: one page of the account's contacts (merged ones left out), last seen first. */
export async function listContacts(
  db: DB,
  accountId: number,
  q: ListQuery,
): Promise<Omit<ContactListAnswer, 'result'>> {
  const base = db
    .selectFrom('contacts as c')
    .where('c.account_id', '=', accountId)
    .where('c.merged_into', 'is', null)
    .where(matching(accountId, q.keyword))
    .where(filtered(accountId, q.filter));
  const [page, total] = await Promise.all([
    base
      .select(['c.id', 'c.name', 'c.salutation', 'c.last_seen_at', 'c.created_at'])
      .orderBy('c.last_seen_at', 'desc')
      .orderBy('c.id', 'desc')
      .limit(q.pagination)
      .offset((q.page - 1) * q.pagination)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
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
    .where(matching(accountId, keyword))
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
