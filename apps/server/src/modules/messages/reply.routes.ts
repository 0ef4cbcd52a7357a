import { ErrorCode, firstBadEmail, MESSAGE_STRINGS, ReplyAnswer, ReplyInput } from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AppError } from '../../platform/http/errors.js';
import { setTicketStatus } from '../tickets/index.js';
import { sendMessage } from './commands/postMessage.js';
import type { MessageDeps } from './messages.routes.js';
import { readableTicket } from './messages.routes.js';
import { readMultipart } from './multipart.js';
import { uploadFrom } from './uploads.routes.js';

const bad = (message: string) => new AppError(400, ErrorCode.validation, message);

/**
 * MSG-25..31: a reply with e-mail fields and attachments, as JSON or multipart. Every cc and toEmail address,
 * and the main one when the HTML reply has no toEmail, must pass the e-mail check ("Please check the email
 * address. {address}"); nothing is stored otherwise. `closed` sets the ticket's status after the reply.
 * Sending the e-mail itself belongs to the e-mail channel; the addresses are kept on the message.
 */
export function replyRoutes(app: FastifyInstance, deps: MessageDeps): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .post(
      '/api/ticket/message/reply',
      { config: { auth: 'user' }, schema: { response: { 200: ReplyAnswer } } },
      async (req) => {
        const auth = req.auth!;
        const multipart = req.isMultipart() ? await readMultipart(req) : null;
        const parsed = ReplyInput.safeParse(multipart ? multipart.fields : (req.body ?? {}));
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw bad(issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'Invalid request.');
        }
        const input = parsed.data;
        await readableTicket(deps.db, req, input.ticket_id);
        const badAddress = firstBadEmail(input);
        if (badAddress !== null) throw bad(MESSAGE_STRINGS.badEmail(badAddress));
        const files = multipart?.files.length
          ? await uploadFrom(deps, req, multipart.files, String(input.ticket_id))
          : [];
        const isEmail = input.type === 'text/html' || input.toEmail.length > 0 || input.cc.length > 0 || !!input.email;
        const message = await sendMessage(deps.db, auth, input, {
          files,
          email: isEmail
            ? {
                to: [...(input.email ? [input.email] : []), ...input.toEmail],
                cc: input.cc,
                subject: input.title ?? '',
                email2: input.email2,
                template: input.template,
              }
            : null,
        });
        if (input.closed !== undefined)
          await setTicketStatus(deps.db, auth, { id: input.ticket_id, status: input.closed });
        const first = message.files[0];
        return {
          result: 'success' as const,
          id: message.id,
          file: first?.file ?? '',
          fileType: first?.fileType ?? '',
          fileName: first?.fileName ?? '',
          data: message,
        };
      },
    );
}
