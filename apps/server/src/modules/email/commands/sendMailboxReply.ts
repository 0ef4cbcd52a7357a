import { EMAIL_STRINGS, type EmailState, MESSAGE_STRINGS, type MessageEmailStateEvent } from '@parley/contracts';
import nodemailer from 'nodemailer';
import type pino from 'pino';
import type { DB } from '../../../platform/db/db.js';
import { appendEvent, type Listener, runCommand, type Trx } from '../../../platform/outbox/index.js';
import type { Task } from '../../../platform/scheduler.js';
import { type Conversations, htmlToText, keyOf, uploadPath } from '../../messages/index.js';
import { serverWords } from '../connectionTest.js';
import type { GraphClient } from '../graphClient.js';
import { findMailbox, type MailboxRow } from '../mailboxes.queries.js';
import type { Secrets } from '../secrets.js';
import { outMessageId, taggedSubject, threadHeaders } from '../threading.js';
import { sendGraphReply } from './sendGraphReply.js';

/** Tries of one send (the first and the relay's retries with its backoff: 1, 2, 4, 8 s) before it fails. */
export const EMAIL_SEND_TRIES = 5;
/**
 * A send whose outcome is not recorded this long after it began was cut short (the node died): far longer
 * than a send can take with the transport's timeouts below, so a live one is never taken for dead.
 */
export const EMAIL_INTERRUPTED_MS = 10 * 60_000;

/** What `email.reply_queued` carries: the message to send (stored `sending`). */
export interface ReplyQueued {
  messageId: number;
  ticketId: number;
}

export interface SendDeps {
  db: DB;
  conversations: Conversations;
  secrets: Secrets | null;
  dataDir: string;
  log: pino.Logger;
  /** Microsoft Graph, for the replies of Microsoft 365 mailboxes. */
  graph?: GraphClient;
}

/** A send that may go through later: a connection error or a 4xx (the server's "try again later"). */
class TryAgain extends Error {}

/** The SMTP server's answer is a refusal for good (5xx): trying again would get the same. */
const refusedForGood = (err: unknown) => {
  const code = (err as { responseCode?: unknown })?.responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
};

/**
 * Records a send's outcome and tells the conversation's staff (`messageEmailState`), only if the attempt
 * that began at `attemptAt` still owns the row (the sweep may have settled it meanwhile).
 */
export async function settle(
  trx: Trx,
  conversations: Conversations,
  m: { accountId: number; id: number; ticketId: number; channel: string; attemptAt: number | null },
  state: EmailState,
  error: string | null,
): Promise<boolean> {
  let q = trx
    .updateTable('messages')
    .set({ email_state: state, email_error: error, email_attempt_at: null })
    .where('account_id', '=', m.accountId)
    .where('id', '=', m.id);
  q = m.attemptAt === null ? q.where('email_attempt_at', 'is', null) : q.where('email_attempt_at', '=', m.attemptAt);
  const r = await q.executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) return false;
  await appendEmailState(trx, conversations, m, state, error);
  return true;
}

/** `message.email_state_changed` to the conversation's staff as `messageEmailState`. */
export async function appendEmailState(
  trx: Trx,
  conversations: Conversations,
  m: { accountId: number; id: number; ticketId: number; channel: string },
  state: EmailState,
  error: string | null,
): Promise<void> {
  const rooms = await conversations.staffAudience(trx, { id: m.ticketId, accountId: m.accountId, channel: m.channel });
  await appendEvent(trx, {
    accountId: m.accountId,
    type: 'message.email_state_changed',
    payload: { ticketId: m.ticketId, messageId: m.id, state, error } satisfies MessageEmailStateEvent,
    realtime: { name: 'messageEmailState', rooms },
  });
}

/**
 * The mailbox's SMTP server, its password and DKIM key opened, or the words of why it cannot be used (a secret
 * that does not open with this SECRETS_KEY). With a DKIM selector and key, mail is signed for the address's
 * domain (nodemailer's `dkim`: relaxed/relaxed, rsa-sha256).
 */
function transportOf(box: MailboxRow, secrets: Secrets | null, accountId: number) {
  const password = box.smtp_secret === '' ? '' : (secrets?.open(accountId, box.smtp_secret) ?? null);
  if (password === null) return { error: EMAIL_STRINGS.cannotDecrypt };
  const dkimKey = box.dkim_selector && box.dkim_secret ? (secrets?.open(accountId, box.dkim_secret) ?? null) : '';
  if (dkimKey === null) return { error: EMAIL_STRINGS.dkimCannotDecrypt };
  const transport = nodemailer.createTransport({
    host: box.smtp_host,
    port: Number(box.smtp_port),
    secure: Number(box.smtp_tls) === 1,
    ...(box.smtp_secret !== '' ? { auth: { user: box.smtp_user, pass: password } } : {}),
    ...(dkimKey
      ? {
          dkim: {
            domainName: box.address.slice(box.address.lastIndexOf('@') + 1).toLowerCase(),
            keySelector: box.dkim_selector,
            privateKey: dkimKey,
          },
        }
      : {}),
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 60_000,
  });
  return { transport };
}

const bracketed = (id: string) => `<${id}>`;

/**
 * Sends one reply stored `sending` from its ticket's mailbox, exactly once as far as it can be known:
 * 1. The attempt is recorded first (`email_attempt_at`, only where the message is `sending` and no attempt is
 *    under way) together with its outbound Message-ID row; a repeat of the event, another node, or a send
 *    already recorded `sent` or `failed` finds nothing to claim and sends nothing.
 * 2. The mail goes out (From the mailbox, our Message-ID, In-Reply-To, References, the `[#N]` subject).
 * 3. The outcome is recorded: `sent`; `failed` with the server's words on a 5xx, an unreadable password or a
 *    mailbox gone; a connection error or a 4xx gives the attempt back and throws, so the relay tries again
 *    with its backoff, until EMAIL_SEND_TRIES, then `failed`.
 * A crash between 2 and 3 leaves the attempt recorded and unsettled: it is never sent again by itself
 * (`failInterruptedEmails` marks it failed, and the agent decides whether to retry).
 */
export async function sendMailboxReply(deps: SendDeps, accountId: number, q: ReplyQueued, tries: number) {
  const { db, conversations } = deps;
  const attemptAt = Date.now();
  const claimed = await runCommand(db, async (trx) => {
    const took = await trx
      .updateTable('messages')
      .set({ email_attempt_at: attemptAt })
      .where('account_id', '=', accountId)
      .where('id', '=', q.messageId)
      .where('email_state', '=', 'sending')
      .where('email_attempt_at', 'is', null)
      .executeTakeFirst();
    if (Number(took.numUpdatedRows) !== 1) return null;
    const row = await trx
      .selectFrom('messages as m')
      .innerJoin('tickets as t', (j) => j.onRef('t.id', '=', 'm.ticket_id').onRef('t.account_id', '=', 'm.account_id'))
      .select([
        'm.id',
        'm.ticket_id',
        'm.type',
        'm.message',
        'm.files',
        'm.email_meta',
        'm.created_at',
        't.ticket_number',
        't.channel',
        't.mailbox_id',
      ])
      .where('m.account_id', '=', accountId)
      .where('m.id', '=', q.messageId)
      .executeTakeFirstOrThrow();
    const box = row.mailbox_id === null ? undefined : await findMailbox(trx, accountId, Number(row.mailbox_id));
    const headers = await threadHeaders(trx, accountId, Number(row.ticket_id));
    const id = box
      ? outMessageId({ accountId, messageId: Number(row.id), createdAt: Number(row.created_at), address: box.address })
      : null;
    // Stored before the mail leaves: the customer's answer threads back however fast it comes. Graph's
    // sendMail cannot carry our Message-ID, so a Microsoft 365 mailbox's reply stores none.
    if (box && id && box.kind !== 'graph')
      await trx
        .insertInto('email_message_ids')
        .values({
          account_id: accountId,
          message_id: id,
          ticket_id: Number(row.ticket_id),
          mailbox_id: Number(box.id),
          message_row_id: Number(row.id),
          direction: 'out',
          created_at: attemptAt,
        })
        .onConflict((oc) => oc.columns(['account_id', 'message_id']).doNothing())
        .execute();
    return { row, box, headers, id };
  });
  if (!claimed) return;
  const { row, box, headers, id } = claimed;
  const m = { accountId, id: Number(row.id), ticketId: Number(row.ticket_id), channel: row.channel, attemptAt };
  const fail = (words: string) => runCommand(db, (trx) => settle(trx, conversations, m, 'failed', words));

  if (!box || !id) return void (await fail(MESSAGE_STRINGS.emailNoMailbox));
  if (box.kind === 'graph')
    return sendGraphReply(deps, m, box, {
      id: m.id,
      ticketNumber: Number(row.ticket_number),
      type: row.type,
      message: row.message,
      files: row.files,
      emailMeta: row.email_meta,
    });
  const opened = transportOf(box, deps.secrets, accountId);
  if (!opened.transport) return void (await fail(opened.error));
  const { transport } = opened;
  const meta = JSON.parse(row.email_meta ?? '{}') as { to?: string[]; cc?: string[]; subject?: string };
  const html = row.type === 'text/html';
  const files = JSON.parse(row.files || '[]') as { file: string; fileName: string; fileType: string }[];
  try {
    await transport.sendMail({
      from: box.name ? { name: box.name, address: box.address } : box.address,
      to: meta.to ?? [],
      ...(meta.cc?.length ? { cc: meta.cc } : {}),
      subject: taggedSubject(meta.subject ?? '', Number(row.ticket_number)),
      messageId: bracketed(id),
      ...(headers.inReplyTo ? { inReplyTo: bracketed(headers.inReplyTo) } : {}),
      ...(headers.references.length ? { references: headers.references.map(bracketed) } : {}),
      text: html ? htmlToText(row.message) : row.message,
      ...(html ? { html: row.message } : {}),
      attachments: files.flatMap((f) => {
        const key = keyOf(f.file);
        return key
          ? [{ filename: f.fileName, path: uploadPath(deps.dataDir, accountId, key), contentType: f.fileType }]
          : [];
      }),
    });
  } catch (err) {
    const words = serverWords(err);
    deps.log.warn({ mailbox: Number(box.id), message: m.id, err: { message: words } }, 'mailbox reply not sent');
    if (refusedForGood(err) || tries >= EMAIL_SEND_TRIES) return void (await fail(words));
    // Given back (still `sending`, the words kept for the record): the relay runs the event again later.
    await db
      .updateTable('messages')
      .set({ email_attempt_at: null, email_error: words })
      .where('account_id', '=', accountId)
      .where('id', '=', m.id)
      .where('email_attempt_at', '=', attemptAt)
      .execute();
    throw new TryAgain(words);
  } finally {
    transport.close();
  }
  await runCommand(db, (trx) => settle(trx, conversations, m, 'sent', null));
}

/**
 * The relay's sender of mailbox replies: an effect (it talks to an SMTP server), unordered so a slow server
 * holds up no other event; exactly once through the attempt recorded on the message (see `sendMailboxReply`).
 */
export function sendMailboxReplies(deps: SendDeps): Listener {
  return {
    name: 'email.sendMailboxReply',
    kind: 'effect',
    events: ['email.reply_queued'],
    unordered: true,
    handle: (e) => sendMailboxReply(deps, e.accountId, e.payload as ReplyQueued, e.attempts + 1),
  };
}

/**
 * Sends cut short by a crash (an attempt recorded EMAIL_INTERRUPTED_MS ago and never settled) are marked
 * failed with `emailInterrupted`: whether the server took the mail cannot be known, so it is not sent again
 * by itself.
 */
export function failInterruptedEmails(db: DB, conversations: Conversations, now = Date.now): Task {
  return {
    name: 'failInterruptedEmails',
    everyMs: 60_000,
    async run() {
      const rows = await db
        .selectFrom('messages as m')
        .innerJoin('tickets as t', (j) =>
          j.onRef('t.id', '=', 'm.ticket_id').onRef('t.account_id', '=', 'm.account_id'),
        )
        .select(['m.id', 'm.account_id', 'm.ticket_id', 'm.email_attempt_at', 't.channel'])
        .where('m.email_attempt_at', 'is not', null)
        .where('m.email_attempt_at', '<', now() - EMAIL_INTERRUPTED_MS)
        .limit(500)
        .execute();
      for (const r of rows) {
        const m = {
          accountId: Number(r.account_id),
          id: Number(r.id),
          ticketId: Number(r.ticket_id),
          channel: r.channel,
          attemptAt: Number(r.email_attempt_at),
        };
        await runCommand(db, (trx) => settle(trx, conversations, m, 'failed', MESSAGE_STRINGS.emailInterrupted));
      }
    },
  };
}
