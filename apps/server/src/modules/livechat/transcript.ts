import {
  LIVECHAT_STRINGS,
  type MessageFile,
  planEntitlements,
  TRANSCRIPT_STRINGS,
  TranscriptEmailInput,
  TranscriptParams,
  TranscriptSentAnswer,
  VisitorTranscriptInput,
} from '@parley/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import { AppError, conflict, notFound } from '../../platform/http/errors.js';
import type { Mailer } from '../../platform/mail.js';
import { runCommand, type Trx } from '../../platform/outbox/index.js';
import { requirePlanFeature } from '../accounts/index.js';
import { recordAudit } from '../audit/index.js';
import { type Conversations, readableTicket } from '../messages/index.js';
import { latestChat, visitorOf } from './settings.js';

/** One chat's transcript: who, when, and its messages in order (deleted ones left out). */
export interface Transcript {
  company: string;
  ticketNumber: number;
  visitor: string;
  email: string;
  agent: string;
  startedAt: number | null;
  endedAt: number | null;
  lines: { at: number; who: string; text: string; system: boolean }[];
}

const validEmail = (s: string) => z.string().email().max(200).safeParse(s.trim()).success;

/** A time as UTC ("2026-11-29 15:01:07 UTC"): the visitor's zone is not known. */
const utc = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

const htmlToText = (s: string) =>
  s
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/p>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .trim();

/** The transcript of the chat whose ticket is `ticketId`, in the caller's account; 404 when there is none. */
export async function readTranscript(db: DB | Trx, accountId: number, ticketId: number): Promise<Transcript> {
  const chat = await db
    .selectFrom('livechats as c')
    .innerJoin('tickets as t', (j) => j.onRef('t.id', '=', 'c.ticket_id').onRef('t.account_id', '=', 'c.account_id'))
    .innerJoin('accounts as a', 'a.id', 'c.account_id')
    .select(['c.name', 'c.email', 'c.agent', 'c.accepted_at', 'c.ended_at', 't.ticket_number', 'a.name as company'])
    .where('c.account_id', '=', accountId)
    .where('c.ticket_id', '=', ticketId)
    .executeTakeFirst();
  if (!chat) throw notFound(LIVECHAT_STRINGS.notFound);
  const rows = await db
    .selectFrom('messages')
    .select(['type', 'message', 'sender', 'sender_name', 'files', 'created_at'])
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', ticketId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const lines = rows.map((m) => {
    let files: MessageFile[] = [];
    try {
      files = JSON.parse(m.files || '[]') as MessageFile[];
    } catch {
      files = [];
    }
    const body = m.type === 'text/html' ? htmlToText(m.message) : m.message;
    const attached = files.map((f) => `(file: ${f.fileName})`);
    return {
      at: Number(m.created_at),
      who: m.sender_name || m.sender,
      text: [body, ...attached].filter((x) => x !== '').join(' '),
      system: m.type === 'system',
    };
  });
  return {
    company: chat.company,
    ticketNumber: Number(chat.ticket_number),
    visitor: chat.name,
    email: chat.email,
    agent: chat.agent,
    startedAt: chat.accepted_at === null ? null : Number(chat.accepted_at),
    endedAt: chat.ended_at === null ? null : Number(chat.ended_at),
    lines,
  };
}

/** The transcript as plain text: a heading, the chat's details, then a line per message. */
export function transcriptText(t: Transcript): string {
  const head = [
    TRANSCRIPT_STRINGS.heading + (t.company ? `: ${t.company}` : ''),
    `Chat #${t.ticketNumber}`,
    `Visitor: ${t.visitor}${t.email ? ` <${t.email}>` : ''}`,
    ...(t.agent ? [`Agent: ${t.agent}`] : []),
    ...(t.startedAt !== null ? [`Started: ${utc(t.startedAt)}`] : []),
    ...(t.endedAt !== null ? [`Ended: ${utc(t.endedAt)}`] : []),
  ];
  const body = t.lines.map((l) => (l.system ? `[${utc(l.at)}] ${l.text}` : `[${utc(l.at)}] ${l.who}: ${l.text}`));
  return `${[...head, '', ...body].join('\n')}\n`;
}

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The same as HTML for the e-mail's HTML part (every text escaped). */
export function transcriptHtml(t: Transcript): string {
  const rows = t.lines
    .map(
      (l) =>
        `<tr><td style="color:#666;white-space:nowrap;vertical-align:top;padding:2px 8px 2px 0">${esc(utc(l.at))}</td>` +
        (l.system
          ? `<td colspan="2" style="color:#666;font-style:italic">${esc(l.text)}</td></tr>`
          : `<td style="font-weight:600;vertical-align:top;padding-right:8px">${esc(l.who)}</td><td style="white-space:pre-wrap">${esc(l.text)}</td></tr>`),
    )
    .join('');
  return (
    `<!doctype html><html><body style="font-family:system-ui,sans-serif;color:#1a1b1e">` +
    `<h2>${esc(TRANSCRIPT_STRINGS.heading)}${t.company ? `: ${esc(t.company)}` : ''}</h2>` +
    `<p>Chat #${t.ticketNumber}<br>Visitor: ${esc(t.visitor)}${t.email ? ` &lt;${esc(t.email)}&gt;` : ''}` +
    (t.agent ? `<br>Agent: ${esc(t.agent)}` : '') +
    (t.startedAt !== null ? `<br>Started: ${esc(utc(t.startedAt))}` : '') +
    (t.endedAt !== null ? `<br>Ended: ${esc(utc(t.endedAt))}` : '') +
    `</p><table style="border-collapse:collapse">${rows}</table></body></html>`
  );
}

const smtpWords = (err: unknown) =>
  (err as { response?: string }).response ?? (err instanceof Error ? err.message : String(err));

async function mail(mailer: Mailer, to: string, t: Transcript) {
  try {
    await mailer.send({
      to,
      subject: TRANSCRIPT_STRINGS.subject(t.company),
      text: transcriptText(t),
      html: transcriptHtml(t),
    });
  } catch (err) {
    throw new AppError(502, 'MAIL_FAILED', TRANSCRIPT_STRINGS.notSent(smtpWords(err)));
  }
}

/**
 * PLAN-21 (design): whether the visitor of this chat may have its transcript sent now: the chat ended, the
 * plan includes transcripts, outgoing mail is set up, the form's address is one, and it was not sent yet.
 */
export const visitorMaySend = (
  plan: number,
  mailConfigured: boolean,
  chat: { state: string; email: string; transcript_sent_at: number | null; ticket_id: number | null },
) =>
  (chat.state === 'ended' || chat.state === 'converted') &&
  chat.ticket_id !== null &&
  chat.transcript_sent_at === null &&
  mailConfigured &&
  planEntitlements(plan).chatTranscript &&
  validEmail(chat.email);

/** The transcript calls: the agent's download and e-mail, and the visitor's own copy. */
export function transcriptRoutes(
  app: FastifyInstance,
  deps: {
    db: DB;
    conversations: Conversations;
    mailer: Mailer;
    /** The visitor calls' limit per address (the same as the other visitor calls). */
    throttle: (req: FastifyRequest) => void;
  },
) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db, conversations, mailer } = deps;

  /** The chat's transcript for an agent who may read its ticket, if the plan includes transcripts. */
  const agentTranscript = async (req: FastifyRequest, ticketId: number) => {
    await readableTicket(db, conversations, req, ticketId);
    const accountId = req.auth!.accountId;
    return runCommand(db, async (trx) => {
      const t = await readTranscript(trx, accountId, ticketId);
      await requirePlanFeature(trx, accountId, 'chatTranscript', TRANSCRIPT_STRINGS.notOnPlan);
      return t;
    });
  };

  // Download: the transcript as a text file.
  r.get(
    '/api/livechat/transcript/:ticketId',
    { config: { auth: 'user' }, schema: { params: TranscriptParams } },
    async (req, reply) => {
      const t = await agentTranscript(req, req.params.ticketId);
      return reply
        .type('text/plain; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('content-disposition', `attachment; filename="chat-${t.ticketNumber}-transcript.txt"`)
        .send(transcriptText(t));
    },
  );

  // E-mail: to the visitor's address, or the one given.
  r.post(
    '/api/livechat/transcript/email',
    {
      config: { auth: 'user' },
      schema: {
        body: TranscriptEmailInput,
        response: { 200: TranscriptSentAnswer },
      },
    },
    async (req) => {
      const t = await agentTranscript(req, req.body.id);
      if (!mailer.configured) throw conflict(TRANSCRIPT_STRINGS.noMail);
      const to = req.body.to ?? t.email.trim();
      if (!validEmail(to)) throw conflict(TRANSCRIPT_STRINGS.noEmail);
      await mail(mailer, to, t);
      const a = req.auth!;
      await recordAudit(db, {
        accountId: a.accountId,
        userId: a.userId,
        actor: a.username,
        action: 'livechat.transcript_sent',
        detail: { ticket: req.body.id, to },
      });
      return { result: 'success' as const, to };
    },
  );

  // The visitor's own copy, once the chat has ended, to the address of its form; once per chat.
  r.post(
    '/api/livechat/transcript/visitor',
    {
      config: { auth: 'public' },
      schema: {
        body: VisitorTranscriptInput,
        response: { 200: TranscriptSentAnswer },
      },
    },
    async (req) => {
      deps.throttle(req);
      const taken = await runCommand(db, async (trx) => {
        const { account, visitor } = await visitorOf(trx, req.body.token, req.body._token);
        const chat = await latestChat(trx, account.accountId, visitor.id);
        if (!chat || (chat.state !== 'ended' && chat.state !== 'converted') || chat.ticket_id === null)
          throw conflict(TRANSCRIPT_STRINGS.notEnded);
        await requirePlanFeature(trx, account.accountId, 'chatTranscript', TRANSCRIPT_STRINGS.notOnPlan);
        if (!mailer.configured) throw conflict(TRANSCRIPT_STRINGS.noMail);
        if (!validEmail(chat.email)) throw conflict(TRANSCRIPT_STRINGS.noEmail);
        // Once per chat: of two presses racing, one takes it.
        const r = await trx
          .updateTable('livechats')
          .set({ transcript_sent_at: Date.now() })
          .where('id', '=', chat.id)
          .where('transcript_sent_at', 'is', null)
          .executeTakeFirst();
        if (Number(r.numUpdatedRows) === 0) throw conflict(TRANSCRIPT_STRINGS.alreadySent);
        const t = await readTranscript(trx, account.accountId, Number(chat.ticket_id));
        return { accountId: account.accountId, chatId: Number(chat.id), ticketId: Number(chat.ticket_id), t };
      });
      const to = taken.t.email.trim();
      try {
        await mail(mailer, to, taken.t);
      } catch (err) {
        // Not sent: the visitor may try again.
        await db
          .updateTable('livechats')
          .set({ transcript_sent_at: null })
          .where('id', '=', taken.chatId)
          .where('account_id', '=', taken.accountId)
          .execute();
        throw err;
      }
      await recordAudit(db, {
        accountId: taken.accountId,
        actor: 'visitor',
        action: 'livechat.transcript_sent',
        detail: { ticket: taken.ticketId, to, visitor: true },
      });
      return { result: 'success' as const, to };
    },
  );
}
