import { EMAIL_STRINGS } from '@parley/contracts';
import type { DB } from '../../../platform/db/db.js';
import { runCommand, type Trx } from '../../../platform/outbox/index.js';
import { bounceOf } from '../bounces.js';
import type { InboundMail } from '../parseMail.js';
import { appendEmailState } from './sendMailboxReply.js';
import { claim, knownId, type MailboxRef, type MailFence, type StoreDeps } from './storeMail.js';

/** Our reply (direction `out`) among the ids a bounce names, the nearest first; undefined when none is ours. */
async function ourReply(q: DB | Trx, accountId: number, ids: string[]) {
  if (ids.length === 0) return undefined;
  const rows = await q
    .selectFrom('email_message_ids')
    .select(['message_id', 'ticket_id', 'message_row_id'])
    .where('account_id', '=', accountId)
    .where('direction', '=', 'out')
    .where('message_row_id', 'is not', null)
    .where('message_id', 'in', ids)
    .execute();
  return ids.map((id) => rows.find((r) => r.message_id === id)).find((r) => r !== undefined);
}

/**
 * A bounce of one of our replies marks that reply `failed` with the bounce's reason (`Bounced: ...`), tells
 * the conversation's staff as the sender does (`message.email_state_changed`), and keeps only the bounce's
 * Message-ID (no message, no ticket), so the same bounce by IMAP and by forwarding counts once. A reply that
 * is failed already keeps its first reason. Null when the mail is not a bounce of ours: it is stored as any
 * mail (a bounce naming nothing of ours is noise).
 */
export async function recordBounce(
  deps: StoreDeps,
  box: MailboxRef,
  fence: MailFence | null,
  mail: InboundMail,
): Promise<'bounced' | 'duplicate' | null> {
  const bounce = bounceOf(mail);
  if (!bounce) return null;
  const { db, conversations } = deps;
  if (!(await ourReply(db, box.accountId, bounce.ids))) return null;
  return runCommand(db, async (trx) => {
    await claim(trx, box, fence);
    if (await knownId(trx, box.accountId, mail.messageId)) return 'duplicate';
    const reply = (await ourReply(trx, box.accountId, bounce.ids))!;
    const m = await trx
      .selectFrom('messages as m')
      .innerJoin('tickets as t', (j) => j.onRef('t.id', '=', 'm.ticket_id').onRef('t.account_id', '=', 'm.account_id'))
      .select(['m.id', 'm.ticket_id', 'm.email_state', 't.channel'])
      .where('m.account_id', '=', box.accountId)
      .where('m.id', '=', Number(reply.message_row_id))
      .executeTakeFirst();
    if (m && m.email_state !== 'failed') {
      const error = EMAIL_STRINGS.bounced(bounce.reason);
      // The attempt is cleared too: a sender still waiting to record `sent` finds the row settled.
      await trx
        .updateTable('messages')
        .set({ email_state: 'failed', email_error: error, email_attempt_at: null })
        .where('account_id', '=', box.accountId)
        .where('id', '=', Number(m.id))
        .execute();
      const ref = { accountId: box.accountId, id: Number(m.id), ticketId: Number(m.ticket_id), channel: m.channel };
      await appendEmailState(trx, conversations, ref, 'failed', error);
    }
    await trx
      .insertInto('email_message_ids')
      .values({
        account_id: box.accountId,
        message_id: mail.messageId,
        ticket_id: Number(reply.ticket_id),
        mailbox_id: box.id,
        message_row_id: null,
        direction: 'in',
        created_at: Date.now(),
      })
      .execute();
    return 'bounced';
  });
}
