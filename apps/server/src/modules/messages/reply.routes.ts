import { ErrorCode, firstBadEmail, MESSAGE_STRINGS, ReplyAnswer, ReplyInput } from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AppError, badRequest } from '../../platform/http/errors.js';
import { setTicketStatus } from '../tickets/index.js';
import { CLIENT_ID_TAKEN, sendMessage } from './commands/postMessage.js';
import { envelopeOf, isEmailReply, mailboxOf, mailReply, type ReplyEnvelope, smtpResponse } from './emailReply.js';
import type { MessageDeps } from './messages.routes.js';
import { readableTicket } from './messages.routes.js';
import { readMultipart } from './multipart.js';
import { discardUploads } from './uploads.js';
import { uploadFrom } from './uploads.routes.js';

/**
 * MSG-25..31: a reply with e-mail fields and attachments, as JSON or multipart. Every cc and toEmail address,
 * and the main one when the HTML reply has no toEmail, must pass the e-mail check ("Please check the email
 * address. {address}"); nothing is stored otherwise. `closed` sets the ticket's status after the reply.
 *
 * On a ticket that came in through a mailbox the reply is stored at once (`mail: 'sending'`) and leaves from
 * that mailbox after commit, through the outbox with retries (email module, `sendMailboxReplies`).
 *
 * Otherwise an e-mail reply is sent through the configured SMTP server (SMTP_URL) before it is stored: a
 * refusal answers 502 with the server's response and stores nothing (the agent fixes it and sends again), so
 * the conversation never shows a reply the customer did not get. Without SMTP_URL the reply is stored and the
 * answer says mail is not configured (`mail: 'not_configured'`). A repeat of a stored `client_id` answers
 * the stored reply and sends nothing again.
 */
export function replyRoutes(app: FastifyInstance, deps: MessageDeps): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .post(
      '/api/ticket/message/reply',
      { config: { auth: 'user' }, schema: { response: { 200: ReplyAnswer } } },
      async (req, res) => {
        const auth = req.auth!;
        const multipart = req.isMultipart() ? await readMultipart(req, res, deps) : null;
        const parsed = ReplyInput.safeParse(multipart ? multipart.fields : (req.body ?? {}));
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw badRequest(issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'Invalid request.');
        }
        const input = parsed.data;
        const ticket = await readableTicket(deps.db, deps.conversations, req, input.ticket_id);
        const badAddress = firstBadEmail(input);
        if (badAddress !== null) throw badRequest(MESSAGE_STRINGS.badEmail(badAddress));

        const stored = input.client_id
          ? await storedReply(deps, auth.accountId, input.ticket_id, input.client_id)
          : undefined;
        const envelope: ReplyEnvelope | null = stored
          ? stored.envelope
          : isEmailReply(input)
            ? envelopeOf(input, ticket.title)
            : null;
        const mailbox = !stored && envelope ? await mailboxOf(deps.db, auth.accountId, input.ticket_id) : null;
        const files =
          !stored && multipart?.files.length
            ? await uploadFrom(deps, req, multipart.files, String(input.ticket_id))
            : [];
        // A mailbox reply is sent after commit; the message carries its state.
        const now = !stored && envelope !== null && mailbox === null;
        if (now && envelope && deps.mailer.configured) {
          try {
            await mailReply(deps.mailer, {
              dataDir: deps.dataDir,
              accountId: auth.accountId,
              envelope,
              type: input.type,
              message: input.message,
              files,
            });
            envelope.sent = true;
          } catch (err) {
            req.log.warn({ err: { message: smtpResponse(err) } }, 'e-mail reply refused');
            await discardUploads(deps.db, deps.dataDir, auth.accountId, files);
            throw new AppError(502, ErrorCode.mailFailed, MESSAGE_STRINGS.mailFailed(smtpResponse(err)));
          }
        } else if (now && envelope) envelope.sent = false;

        const message = await sendMessage(deps.db, deps.conversations, auth, input, {
          files,
          email: envelope,
          emailOut: mailbox !== null,
        });
        if (input.closed !== undefined)
          await setTicketStatus(deps.db, deps.conversations, auth, { id: input.ticket_id, status: input.closed });
        const first = message.files[0];
        const mail = !envelope ? 'none' : (message.email?.state ?? (envelope.sent ? 'sent' : 'not_configured'));
        return {
          result: 'success' as const,
          id: message.id,
          file: first?.file ?? '',
          fileType: first?.fileType ?? '',
          fileName: first?.fileName ?? '',
          data: message,
          mail,
          ...(mail === 'not_configured' ? { description: MESSAGE_STRINGS.mailNotConfigured } : {}),
        } as const;
      },
    );
}

/**
 * A reply already stored under this `queue-` id in this ticket: its e-mail envelope (null when it was not
 * an e-mail). An id taken in another ticket is refused here, before any mail goes out.
 */
async function storedReply(deps: MessageDeps, accountId: number, ticketId: number, clientId: string) {
  const row = await deps.db
    .selectFrom('messages')
    .select(['id', 'ticket_id', 'email_meta'])
    .where('account_id', '=', accountId)
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  if (!row) return undefined;
  if (Number(row.ticket_id) !== ticketId) throw badRequest(CLIENT_ID_TAKEN);
  return { envelope: row.email_meta ? (JSON.parse(row.email_meta) as ReplyEnvelope) : null };
}
