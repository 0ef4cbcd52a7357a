import { readFile } from 'node:fs/promises';
import { RETENTION_STRINGS } from '@parley/contracts';
import JSZip from 'jszip';
import type { AuthContext } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import { badRequest, notFound } from '../../platform/http/errors.js';
import { runCommand } from '../../platform/outbox/index.js';
import { recordAudit } from '../audit/index.js';
import { keyOf, uploadPath } from '../messages/index.js';
import { BATCH, deleteTickets, removeFiles } from './purge.js';

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/** The contact of the account, or 404 (another account's contact is simply not found). */
async function contactOf(db: DB, accountId: number, id: number) {
  const c = await db
    .selectFrom('contacts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!c) throw notFound(RETENTION_STRINGS.contactNotFound);
  return c;
}

/** The contact and the contacts merged into it earlier: the same person's rows. */
async function personIds(db: DB, accountId: number, id: number): Promise<number[]> {
  const merged = await db
    .selectFrom('contacts')
    .select('id')
    .where('account_id', '=', accountId)
    .where('merged_into', '=', id)
    .execute();
  return [id, ...merged.map((m) => Number(m.id))];
}

/** Tickets of a contact on every customer channel (Workspace chats are the team's, never a contact's). */
const ticketsOf = (db: DB, accountId: number, contactIds: number[]) =>
  db
    .selectFrom('tickets')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('contact_id', 'in', contactIds)
    .where('channel', '!=', 'chat')
    .orderBy('id')
    .execute();

/**
 * A contact's data as a ZIP: `contact.json` (the contact and its addresses, every conversation of it on any
 * channel with every message, the notes, the live chat details and calls) and `files/<ticket number>/...`
 * (every stored file of those conversations: attachments and recordings). Recorded in the audit log by id.
 */
export async function exportContact(
  db: DB,
  dataDir: string,
  auth: AuthContext,
  id: number,
): Promise<{ zip: Buffer; fileName: string }> {
  const contact = await contactOf(db, auth.accountId, id);
  const accountId = auth.accountId;
  const ids = await personIds(db, accountId, id);
  const identifiers = await db
    .selectFrom('contact_identifiers')
    .select(['kind', 'value', 'verified', 'created_at'])
    .where('account_id', '=', accountId)
    .where('contact_id', 'in', ids)
    .orderBy('id')
    .execute();
  const tickets = await ticketsOf(db, accountId, ids);
  const ticketIds = tickets.map((t) => Number(t.id));
  const zip = new JSZip();
  const out: unknown[] = [];
  for (const t of tickets) {
    const tid = Number(t.id);
    const [messages, notes, messageNotes, chats, calls, uploads] = await Promise.all([
      db
        .selectFrom('messages')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('ticket_id', '=', tid)
        .orderBy('id')
        .execute(),
      db
        .selectFrom('ticket_notes')
        .select(['sender', 'text', 'created_at'])
        .where('account_id', '=', accountId)
        .where('ticket_id', '=', tid)
        .orderBy('id')
        .execute(),
      db
        .selectFrom('message_notes')
        .select(['message_id', 'sender', 'text', 'created_at'])
        .where('account_id', '=', accountId)
        .where('ticket_id', '=', tid)
        .orderBy('id')
        .execute(),
      db
        .selectFrom('livechats')
        .select([
          'name',
          'email',
          'phone',
          'ic',
          'message',
          'page',
          'browser',
          'queued_at',
          'ended_at',
          'rating',
          'reason',
        ])
        .where('account_id', '=', accountId)
        .where('ticket_id', '=', tid)
        .execute(),
      db
        .selectFrom('calls')
        .select(['call_id', 'started_at', 'ended_at', 'duration', 'recording_key', 'recording_name'])
        .where('account_id', '=', accountId)
        .where('ticket_id', '=', tid)
        .execute(),
      db
        .selectFrom('uploads')
        .select(['key', 'name'])
        .where('account_id', '=', accountId)
        .where('ticket_id', '=', tid)
        .execute(),
    ]);
    // Every stored file the conversation names: its uploads, its messages' files and its recordings.
    const files = new Map(uploads.map((u) => [u.key, u.name]));
    for (const m of messages)
      for (const f of JSON.parse(m.files || '[]') as { file?: string; name?: string }[]) {
        const k = f.file ? keyOf(f.file) : null;
        if (k && !files.has(k)) files.set(k, f.name ?? k);
      }
    for (const c of calls) if (c.recording_key) files.set(c.recording_key, c.recording_name || 'recording');
    const listed: string[] = [];
    for (const [key, name] of files) {
      const bytes = await readFile(uploadPath(dataDir, accountId, key)).catch(() => null);
      if (!bytes) continue;
      const at = `files/${t.ticket_number}/${key.slice(0, 8)}-${name}`;
      zip.file(at, bytes);
      listed.push(at);
    }
    out.push({
      ticketNumber: Number(t.ticket_number),
      title: t.title,
      channel: t.channel,
      status: Number(t.closed),
      name: t.name,
      email: t.email,
      phone: t.phone,
      fields: JSON.parse(t.other || '{}'),
      createdAt: Number(t.created_at),
      updatedAt: Number(t.updated_at),
      messages: messages.map((m) => ({
        id: Number(m.id),
        type: m.type,
        sender: m.sender,
        senderName: m.sender_name,
        message: m.message,
        files: JSON.parse(m.files || '[]'),
        createdAt: Number(m.created_at),
        deletedAt: num(m.deleted_at),
      })),
      notes: notes.map((n) => ({ sender: n.sender, text: n.text, createdAt: Number(n.created_at) })),
      messageNotes: messageNotes.map((n) => ({
        messageId: Number(n.message_id),
        sender: n.sender,
        text: n.text,
        createdAt: Number(n.created_at),
      })),
      liveChats: chats.map((c) => ({ ...c, queued_at: Number(c.queued_at), ended_at: num(c.ended_at) })),
      calls: calls.map((c) => ({
        callId: c.call_id,
        startedAt: Number(c.started_at),
        endedAt: num(c.ended_at),
        duration: Number(c.duration),
        recording: c.recording_name,
      })),
      files: listed,
    });
  }
  const data = {
    exportedAt: Date.now(),
    contact: {
      id: Number(contact.id),
      name: contact.name,
      salutation: contact.salutation,
      idType: contact.id_type,
      idNumber: contact.id_number,
      notes: contact.notes,
      createdAt: Number(contact.created_at),
      lastSeenAt: Number(contact.last_seen_at),
    },
    identifiers: identifiers.map((i) => ({
      kind: i.kind,
      value: i.value,
      verified: Boolean(Number(i.verified)),
      createdAt: Number(i.created_at),
    })),
    tickets: out,
  };
  zip.file('contact.json', JSON.stringify(data, null, 2));
  const buf = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
  await recordAudit(db, {
    accountId,
    userId: auth.userId,
    actor: auth.username,
    action: 'contact.exported',
    detail: { contactId: id, tickets: ticketIds.length },
  });
  return { zip: buf, fileName: `contact-${id}.zip` };
}

/**
 * Erases a contact on request: every conversation of it (and of contacts merged into it) on every channel
 * is deleted with its messages and files, in batches; then its addresses, merge records and the contact
 * itself; cases and calendar events keep their own rows but lose the link. The audit entry holds the
 * contact's id and the counts, never its name or addresses.
 */
export async function eraseContact(
  db: DB,
  dataDir: string,
  auth: AuthContext,
  id: number,
  confirm: string,
): Promise<{ tickets: number; messages: number; files: number }> {
  const contact = await contactOf(db, auth.accountId, id);
  const typed = confirm.trim();
  if (typed !== contact.name.trim() && typed !== String(id)) throw badRequest(RETENTION_STRINGS.eraseMismatch);
  const accountId = auth.accountId;
  const ids = await personIds(db, accountId, id);
  const total = { tickets: 0, messages: 0, files: 0 };
  for (;;) {
    const batch = (await ticketsOf(db, accountId, ids)).slice(0, BATCH).map((t) => Number(t.id));
    if (batch.length === 0) break;
    const removed = await runCommand(db, (trx) => deleteTickets(trx, accountId, batch));
    await removeFiles(dataDir, accountId, removed.files);
    total.tickets += removed.tickets;
    total.messages += removed.messages;
    total.files += removed.files.length;
  }
  await runCommand(db, async (trx) => {
    await trx
      .deleteFrom('contact_merges')
      .where('account_id', '=', accountId)
      .where((eb) => eb.or([eb('kept_id', 'in', ids), eb('merged_id', 'in', ids)]))
      .execute();
    await trx
      .updateTable('cases')
      .set({ contact_id: null })
      .where('account_id', '=', accountId)
      .where('contact_id', 'in', ids)
      .execute();
    await trx
      .updateTable('calendar_events')
      .set({ contact_id: null })
      .where('account_id', '=', accountId)
      .where('contact_id', 'in', ids)
      .execute();
    // Tickets of a Workspace chat never name a contact; any other link left is cut before the rows go.
    await trx
      .updateTable('tickets')
      .set({ contact_id: null })
      .where('account_id', '=', accountId)
      .where('contact_id', 'in', ids)
      .execute();
    await trx
      .deleteFrom('contact_identifiers')
      .where('account_id', '=', accountId)
      .where('contact_id', 'in', ids)
      .execute();
    await trx
      .updateTable('contacts')
      .set({ merged_into: null })
      .where('account_id', '=', accountId)
      .where('id', 'in', ids)
      .execute();
    await trx.deleteFrom('contacts').where('account_id', '=', accountId).where('id', 'in', ids).execute();
    await recordAudit(trx, {
      accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'contact.erased',
      detail: { contactId: id, ...total },
    });
  });
  return total;
}
