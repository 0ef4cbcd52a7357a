import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { EMAIL_STRINGS, isDone, type MessageFile, SENDERS, TICKET_STATUS } from '@parley/contracts';
import { type DB, isUniqueViolation } from '../../../platform/db/db.js';
import { AppError } from '../../../platform/http/errors.js';
import { runCommand, type Trx } from '../../../platform/outbox/index.js';
import { type Conversations, discardUploads, postMessage, storeUploads } from '../../messages/index.js';
import { type Actor, changeTicketIn, createTicket } from '../../tickets/index.js';
import { bounceOf } from '../bounces.js';
import { type InboundMail, subjectTicketNumber, titleOf } from '../parseMail.js';
import { REFERENCES_MAX } from '../threading.js';
import { recordBounce } from './recordBounce.js';

/** The mailbox a mail came in through, as the store needs it. */
export interface MailboxRef {
  id: number;
  accountId: number;
  address: string;
  departmentId: number | null;
  /** The channel of a new ticket: EMAIL (IMAP) by default, GRAPH_EMAIL for a Microsoft 365 mailbox. */
  channel?: 'EMAIL' | 'GRAPH_EMAIL';
}

/**
 * The fence of one mail: the node that holds the mailbox's lease, and the mail's place in it. The mail is
 * stored only if the lease is still this node's and the mailbox's last UID (in this UIDVALIDITY) is below it.
 */
export interface MailFence {
  nodeId: string;
  uidValidity: string;
  uid: number;
}

/**
 * stored: a message (and maybe a ticket); duplicate: its Message-ID was stored before; dropped: noise;
 * bounced: a bounce of our reply, which is marked failed (recordBounce.ts).
 */
export type StoreOutcome = 'stored' | 'duplicate' | 'dropped' | 'bounced';

/** The lease moved to another node, or this UID was stored already: nothing was written. */
export class StaleFetch extends Error {}

export interface StoreDeps {
  db: DB;
  conversations: Conversations;
  dataDir: string;
}

/** The server as the actor of a reopen: audited without a user, so it counts as automatic. */
const serverActor = (accountId: number): Actor => ({ accountId, userId: null, username: 'server', name: 'Parley' });

/**
 * Moves the mailbox's last UID to this mail's (or to `upTo`, the last UID of a batch that starts with this
 * mail), first in the transaction: the row lock orders two writers of one mailbox, and the loser finds no row
 * to move and rolls back. No fence (null): the mail came by the inbound SMTP listener, which has no UID to move.
 */
export async function claim(trx: Trx, box: MailboxRef, fence: MailFence | null, upTo = fence?.uid): Promise<void> {
  if (!fence) return;
  const r = await trx
    .updateTable('mailboxes')
    .set({ last_uid: upTo, last_fetch_at: Date.now(), last_error: null, last_error_at: null })
    .where('account_id', '=', box.accountId)
    .where('id', '=', box.id)
    .where('lease_owner', '=', fence.nodeId)
    .where('uid_validity', '=', fence.uidValidity)
    .where('last_uid', '<', fence.uid)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) throw new StaleFetch(`mailbox ${box.id}: uid ${fence.uid} is not this node's`);
}

/** Only the UID moves: a mail that stores nothing (a duplicate, dropped noise) still counts as fetched. */
export async function skipMail(db: DB, box: MailboxRef, fence: MailFence | null): Promise<void> {
  if (!fence) return;
  await runCommand(db, (trx) => claim(trx, box, fence));
}

export async function knownId(q: DB | Trx, accountId: number, messageId: string): Promise<boolean> {
  const row = await q
    .selectFrom('email_message_ids')
    .select('id')
    .where('account_id', '=', accountId)
    .where('message_id', '=', messageId)
    .executeTakeFirst();
  return !!row;
}

interface ThreadTicket {
  id: number;
  closed: number;
  channel: string;
}

/**
 * The ticket a mail belongs to: the one of In-Reply-To, then of each References entry (nearest first), in
 * the account's Message-ID table; then a `[#N]` tag in the subject; else none.
 */
export async function threadOf(q: DB | Trx, accountId: number, mail: InboundMail): Promise<ThreadTicket | null> {
  const parents = mail.parents.slice(0, 100);
  if (parents.length > 0) {
    const rows = await q
      .selectFrom('email_message_ids as e')
      .innerJoin('tickets as t', (j) => j.onRef('t.id', '=', 'e.ticket_id').onRef('t.account_id', '=', 'e.account_id'))
      .select(['e.message_id', 't.id', 't.closed', 't.channel'])
      .where('e.account_id', '=', accountId)
      .where('e.message_id', 'in', parents)
      .execute();
    for (const p of parents) {
      const hit = rows.find((r) => r.message_id === p);
      if (hit) return { id: Number(hit.id), closed: Number(hit.closed), channel: hit.channel };
    }
  }
  const number = subjectTicketNumber(mail.subject);
  if (number !== null) {
    const t = await q
      .selectFrom('tickets')
      .select(['id', 'closed', 'channel'])
      .where('account_id', '=', accountId)
      .where('ticket_number', '=', number)
      .executeTakeFirst();
    if (t) return { id: Number(t.id), closed: Number(t.closed), channel: t.channel };
  }
  return null;
}

/**
 * Each attachment stored as an upload of the account (plan storage applies), one at a time so one refused
 * file does not cost the others; a refused one leaves a note for the message instead of the file.
 */
async function storeAttachments(deps: StoreDeps, accountId: number, mail: InboundMail) {
  const files: MessageFile[] = [];
  const notes: string[] = [];
  if (mail.attachments.length === 0) return { files, notes };
  const incoming = path.join(deps.dataDir, 'uploads', 'incoming');
  await mkdir(incoming, { recursive: true });
  for (const a of mail.attachments) {
    const tmp = path.join(incoming, `mail-${randomBytes(12).toString('hex')}`);
    try {
      await writeFile(tmp, a.content);
      files.push(
        ...(await storeUploads(deps.db, deps.dataDir, { accountId, userId: null }, null, [
          { name: a.name, path: tmp, size: a.content.length },
        ])),
      );
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      notes.push(EMAIL_STRINGS.attachmentNotStored(a.name, err.message));
    } finally {
      await rm(tmp, { force: true });
    }
  }
  return { files, notes };
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * The writes of one mail inside the caller's transaction (after its claim): nothing when its Message-ID is
 * stored already (another node, another mailbox, an earlier mail of the same batch) or when it is noise that
 * threads to no ticket; else its message, in its thread's ticket (reopened when done) or a new one, and its
 * Message-ID row.
 */
async function writeMail(
  trx: Trx,
  conversations: Conversations,
  box: MailboxRef,
  mail: InboundMail,
  files: MessageFile[],
  notes: string[],
): Promise<StoreOutcome> {
  // Another node (a lease that lapsed mid-mail) or another mailbox stored it meanwhile.
  if (await knownId(trx, box.accountId, mail.messageId)) return 'duplicate';
  let ticket = await threadOf(trx, box.accountId, mail);
  if (!ticket && mail.noise) return 'dropped';
  const sender = mail.from ?? { name: '', address: '' };
  if (!ticket) {
    const id = await createTicket(trx, conversations, {
      accountId: box.accountId,
      channel: box.channel ?? 'EMAIL',
      title: titleOf(mail.subject),
      name: sender.name || sender.address,
      email: sender.address,
      departmentId: box.departmentId,
      receiverEmail: box.address,
      mailboxId: box.id,
      fromCustomer: true,
    });
    ticket = { id, closed: TICKET_STATUS.open, channel: box.channel ?? 'EMAIL' };
  } else if (!mail.noise && isDone(ticket.closed)) {
    await changeTicketIn(trx, conversations, serverActor(box.accountId), ticket.id, async () => ({
      set: { closed: TICKET_STATUS.open },
      message: EMAIL_STRINGS.reopened,
      action: 'ticket.status_set',
      detail: { status: TICKET_STATUS.open, reason: 'customer_email' },
    }));
  }
  const body = mail.html + notes.map((n) => `<p><em>${escapeHtml(n)}</em></p>`).join('');
  const stored = await postMessage(trx, conversations, {
    accountId: box.accountId,
    ticketId: ticket.id,
    sender: SENDERS.visitor,
    senderName: sender.name || sender.address,
    type: 'text/html',
    message: body,
    files,
    email: { to: mail.to, cc: mail.cc, subject: mail.subject },
    // Auto-replies and bounces are kept in their ticket but do not make it wait for the team.
    fromCustomer: !mail.noise,
    channel: ticket.channel,
  });
  await trx
    .insertInto('email_message_ids')
    .values({
      account_id: box.accountId,
      message_id: mail.messageId,
      ticket_id: ticket.id,
      mailbox_id: box.id,
      message_row_id: stored.id,
      direction: 'in',
      created_at: Date.now(),
      // Our reply carries the chain on (bounded as the reply's own References).
      refs: mail.references?.length ? mail.references.slice(-REFERENCES_MAX).join(' ') : null,
    })
    .execute();
  return 'stored';
}

/**
 * Stores one fetched mail exactly once: its message (and a new ticket, or its ticket reopened), its
 * Message-ID row and the mailbox's last UID in one transaction. A Message-ID already stored is skipped (a
 * UIDVALIDITY change, the same mail sent to two of the account's mailboxes); noise that threads to no ticket
 * is dropped. Throws `StaleFetch` when the lease or the UID is no longer this node's (nothing written).
 * `fence` null: a mail from the inbound SMTP listener or Microsoft Graph (no lease, no UID): it is kept once
 * by its Message-ID alone: of two stores at once, the second's Message-ID row breaks the unique index and its
 * whole transaction rolls back (a duplicate).
 */
export async function storeMail(
  deps: StoreDeps,
  box: MailboxRef,
  fence: MailFence | null,
  mail: InboundMail,
): Promise<StoreOutcome> {
  const { db, conversations } = deps;
  if (await knownId(db, box.accountId, mail.messageId)) {
    await skipMail(db, box, fence);
    return 'duplicate';
  }
  // A bounce of one of our replies marks that reply failed instead (recordBounce.ts).
  const bounced = await recordBounce(deps, box, fence, mail);
  if (bounced) return bounced;
  if (mail.noise && !(await threadOf(db, box.accountId, mail))) {
    await skipMail(db, box, fence);
    return 'dropped';
  }
  const { files, notes } = await storeAttachments(deps, box.accountId, mail);
  let outcome: StoreOutcome | undefined;
  try {
    outcome = await runCommand(db, async (trx): Promise<StoreOutcome> => {
      await claim(trx, box, fence);
      return writeMail(trx, conversations, box, mail, files, notes);
    });
  } catch (err) {
    if (fence || !isUniqueViolation(err) || !(await knownId(db, box.accountId, mail.messageId))) throw err;
    outcome = 'duplicate';
  } finally {
    if (outcome !== 'stored' && files.length > 0) await discardUploads(db, deps.dataDir, box.accountId, files);
  }
  return outcome;
}

/** One fetched mail of a batch: its place in the mailbox and what it says. */
export interface FencedMail {
  fence: MailFence;
  mail: InboundMail;
}

/**
 * Whether a mail may be stored in a batch: a plain one. A mail with attachments (stored as uploads before its
 * own transaction), noise or a bounce goes through `storeMail` alone.
 */
export const batchable = (mail: InboundMail): boolean =>
  mail.attachments.length === 0 && !mail.noise && bounceOf(mail) === null;

/**
 * Stores consecutive plain mails of one mailbox (ascending UIDs under one lease and UIDVALIDITY) in one
 * transaction: one claim moves the last UID from below the first mail's to the last mail's, then each mail is
 * written as `storeMail` writes it (a Message-ID already stored, also earlier in the same batch, is skipped).
 * All or nothing: a crash before the commit stores none and counts none of their UIDs, so they are fetched
 * again; after it, none is fetched again. A transaction per mail had cost as much as the mail's own writes.
 * Throws `StaleFetch` as `storeMail` does; any other failure stores the mails one by one, so one mail the
 * database refuses does not hold up the rest.
 */
export async function storeBatch(deps: StoreDeps, box: MailboxRef, items: FencedMail[]): Promise<StoreOutcome[]> {
  if (items.length === 0) return [];
  if (items.length === 1) return [await storeMail(deps, box, items[0]!.fence, items[0]!.mail)];
  const first = items[0]!.fence;
  const last = items[items.length - 1]!.fence;
  try {
    return await runCommand(deps.db, async (trx) => {
      await claim(trx, box, first, last.uid);
      const outcomes: StoreOutcome[] = [];
      for (const { mail } of items) outcomes.push(await writeMail(trx, deps.conversations, box, mail, [], []));
      return outcomes;
    });
  } catch (err) {
    if (err instanceof StaleFetch) throw err;
    const outcomes: StoreOutcome[] = [];
    for (const { fence, mail } of items) outcomes.push(await storeMail(deps, box, fence, mail));
    return outcomes;
  }
}
