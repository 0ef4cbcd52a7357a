import { readFile } from 'node:fs/promises';
import { EMAIL_STRINGS } from '@parley/contracts';
import { runCommand } from '../../../platform/outbox/index.js';
import { keyOf, uploadPath } from '../../messages/index.js';
import { GraphError, graphAppOf, graphWords, userPath } from '../graphClient.js';
import type { MailboxRow } from '../mailboxes.queries.js';
import { taggedSubject } from '../threading.js';
import { EMAIL_SEND_TRIES, type SendDeps, settle } from './sendMailboxReply.js';

/** The message row a claimed reply carries (see `sendMailboxReply`). */
export interface ClaimedReply {
  id: number;
  ticketNumber: number;
  type: string;
  message: string;
  files: string;
  emailMeta: string | null;
}

/** The longest wait between two tries that Graph's Retry-After is followed for; longer is capped to it. */
const RETRY_AFTER_MAX_MS = 60_000;

const recipients = (list: string[] | undefined) => (list ?? []).map((address) => ({ emailAddress: { address } }));

/**
 * The reply as Graph's `sendMail` message: recipients, the subject with the ticket's `[#N]` tag (Graph takes
 * only `x-` headers in `internetMessageHeaders`, so In-Reply-To and References cannot be set: the tag is what
 * threads the customer's answer back), the body as HTML, the files as file attachments.
 */
async function graphMessage(deps: SendDeps, accountId: number, r: ClaimedReply) {
  const meta = JSON.parse(r.emailMeta ?? '{}') as { to?: string[]; cc?: string[]; subject?: string };
  const files = JSON.parse(r.files || '[]') as { file: string; fileName: string; fileType: string }[];
  const attachments = [];
  for (const f of files) {
    const key = keyOf(f.file);
    if (!key) continue;
    attachments.push({
      '@odata.type': '#microsoft.graph.fileAttachment',
      name: f.fileName,
      contentType: f.fileType,
      contentBytes: (await readFile(uploadPath(deps.dataDir, accountId, key))).toString('base64'),
    });
  }
  return {
    message: {
      subject: taggedSubject(meta.subject ?? '', r.ticketNumber),
      body: { contentType: r.type === 'text/html' ? 'HTML' : 'Text', content: r.message },
      toRecipients: recipients(meta.to),
      ...(meta.cc?.length ? { ccRecipients: recipients(meta.cc) } : {}),
      ...(attachments.length ? { attachments } : {}),
    },
    saveToSentItems: true,
  };
}

/**
 * Sends a claimed reply of a Microsoft 365 mailbox by `POST /users/{address}/sendMail`, inside the attempt
 * `sendMailboxReply` recorded (so it is sent at most once by itself, as the SMTP way). Graph's 429 and 5xx
 * (and no answer) are tried again here, after Graph's Retry-After when it gives one (at most a minute), else
 * after 1, 2, 4, 8 s, EMAIL_SEND_TRIES in all; any other refusal is `failed` at once with Graph's words
 * (`error.message`).
 */
export async function sendGraphReply(
  deps: SendDeps,
  m: { accountId: number; id: number; ticketId: number; channel: string; attemptAt: number },
  box: MailboxRow,
  reply: ClaimedReply,
): Promise<void> {
  const { db, conversations } = deps;
  const done = (state: 'sent' | 'failed', words: string | null) =>
    runCommand(db, (trx) => settle(trx, conversations, m, state, words));
  const app = graphAppOf(box, deps.secrets, m.accountId);
  if (!app) return void (await done('failed', EMAIL_STRINGS.cannotDecrypt));
  if (!deps.graph) return void (await done('failed', 'Microsoft Graph is not set up on this server.'));
  let body: Awaited<ReturnType<typeof graphMessage>>;
  try {
    body = await graphMessage(deps, m.accountId, reply);
  } catch (err) {
    return void (await done('failed', graphWords(err)));
  }
  for (let attempt = 1; ; attempt++) {
    try {
      await deps.graph.request(app, 'POST', `${userPath(box.address)}/sendMail`, { json: body });
      return void (await done('sent', null));
    } catch (err) {
      const words = graphWords(err);
      deps.log.warn({ mailbox: Number(box.id), message: m.id, err: { message: words } }, 'graph reply not sent');
      const again = err instanceof GraphError && err.transient && attempt < EMAIL_SEND_TRIES;
      if (!again) return void (await done('failed', words));
      const wait = Math.min(RETRY_AFTER_MAX_MS, err.retryAfterMs ?? 1000 * 2 ** (attempt - 1));
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
