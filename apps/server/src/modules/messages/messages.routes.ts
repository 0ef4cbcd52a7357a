import {
  AddNoteInput,
  CheckAnswer,
  CheckInput,
  CheckParams,
  DeleteMessageAnswer,
  DeleteMessageInput,
  DeleteNoteInput,
  EditNoteInput,
  ENCRYPTION_STRINGS,
  ErrorCode,
  EventItemsAnswer,
  HistoryAnswer,
  HistoryParams,
  HistoryQuery,
  LanguageInput,
  MESSAGE_STRINGS,
  MessageAnswer,
  NoteAnswer,
  OkAnswer,
  PinInput,
  ReactionInput,
  rooms,
  SendMessageInput,
  SYNC_LIMIT,
  SyncAnswer,
  SyncQuery,
  TranslateAnswer,
  TranslateInput,
} from '@parley/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import { AppError, badRequest, notFound } from '../../platform/http/errors.js';
import type { Mailer } from '../../platform/mail.js';
import { headSeq } from '../../platform/outbox/index.js';
import { isEncrypted } from '../encryption/index.js';
import { ticketVisibleTo } from '../tickets/index.js';
import { addNote, deleteMessage, deleteNote, editNote, pin, react } from './commands/changeMessage.js';
import { sendMessage } from './commands/postMessage.js';
import { setTicketLanguage, storeTranslations } from './commands/translation.js';
import {
  deletedSince,
  findTicket,
  forReader,
  historyChunk,
  hydrate,
  messagesAfter,
  readAtOf,
} from './messages.queries.js';
import type { Conversations } from './messages.realtime.js';
import type { UploadGate } from './multipart.js';
import { sweepIncoming } from './multipart.js';
import { replyRoutes } from './reply.routes.js';
import { ticketNoteRoutes } from './ticketNotes.js';
import type { Translators } from './translate.js';
import { uploadRoutes } from './uploads.routes.js';

export interface MessageDeps {
  db: DB;
  /** Who hears and who may read each channel's conversations (this instance's rules). */
  conversations: Conversations;
  dataDir: string;
  /** MSG-49: each account's translator; none set up: translation answers `not_configured`. */
  translators: Translators;
  /** E-mail replies (MSG-25) go out through it. */
  mailer: Mailer;
  /** The cap on multipart requests read at once (uploads, replies with attachments). */
  uploadGate: UploadGate;
}

/** The ticket of the caller's account that they may read, else 404 "Ticket not found." / 403 (MSG-47). */
export async function readableTicket(db: DB, conversations: Conversations, req: FastifyRequest, ticketId: number) {
  const auth = req.auth!;
  const t = await findTicket(db, auth.accountId, ticketId);
  if (!t) throw notFound(MESSAGE_STRINGS.ticketNotFound);
  const ticket = { id: Number(t.id), accountId: auth.accountId, channel: t.channel };
  if (!(await conversations.canRead(db, ticket, auth.userId)))
    throw new AppError(403, ErrorCode.forbidden, MESSAGE_STRINGS.cannotRead);
  return t;
}

/** History, sending, sync, deletion, notes, reactions, pins, files and translation. */
export async function messageRoutes(app: FastifyInstance, deps: MessageDeps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db, conversations } = deps;
  const ok = { result: 'success' as const };

  // MSG-38: both paths are one call; `/api/ticket/data3` is the newer client's.
  for (const path of ['/ticket/data/:id/:count', '/api/ticket/data3/:id/:count'])
    r.get(
      path,
      {
        config: { auth: 'user' },
        schema: { params: HistoryParams, querystring: HistoryQuery, response: { 200: HistoryAnswer } },
      },
      async (req) => {
        const auth = req.auth!;
        const ticket = await readableTicket(db, conversations, req, req.params.id);
        const chunk = await historyChunk(db, auth.accountId, req.params.id, {
          before: req.query.messageId,
          skip: req.params.count,
        });
        const readAt = await readAtOf(db, auth.accountId, req.params.id, auth.userId);
        const reader = { accountId: auth.accountId, username: auth.username, readAt };
        return {
          ...ok,
          channel: ticket.channel,
          data: (await hydrate(db, auth.accountId, chunk.rows)).map((m) => forReader(m, reader)),
          count: chunk.count,
          more: chunk.more,
        };
      },
    );

  r.post(
    '/api/ticket/message',
    { config: { auth: 'user' }, schema: { body: SendMessageInput, response: { 200: MessageAnswer } } },
    // sendMessage answers 404 and 403 as readableTicket does, reading the ticket once in its transaction.
    async (req) => ({ ...ok, data: await sendMessage(db, conversations, req.auth!, req.body) }),
  );

  r.post(
    '/api/ticket/message/delete',
    { config: { auth: 'user' }, schema: { body: DeleteMessageInput, response: { 200: DeleteMessageAnswer } } },
    async (req) => {
      await deleteMessage(db, conversations, req.auth!, req.body);
      return { ...ok, message_id: req.body.message_id };
    },
  );

  // MSG-44, MSG-45: what one open conversation missed.
  r.post(
    '/api/ticket/data/check/:ticketId/:lastMessageId',
    {
      config: { auth: 'user' },
      schema: { params: CheckParams, body: CheckInput.optional(), response: { 200: CheckAnswer } },
    },
    async (req) => {
      const auth = req.auth!;
      const { ticketId, lastMessageId } = req.params;
      await readableTicket(db, conversations, req, ticketId);
      const now = Date.now();
      const rows = await messagesAfter(db, auth.accountId, ticketId, lastMessageId, SYNC_LIMIT);
      const reader = {
        accountId: auth.accountId,
        username: auth.username,
        readAt: await readAtOf(db, auth.accountId, ticketId, auth.userId),
      };
      return {
        ...ok,
        missing: (await hydrate(db, auth.accountId, rows.slice(0, SYNC_LIMIT))).map((m) => forReader(m, reader)),
        deleted: await deletedSince(db, auth.accountId, ticketId, Math.floor((req.body?.ts ?? 0) * 1000)),
        complete: rows.length <= SYNC_LIMIT,
        ts: Math.floor(now / 1000),
      };
    },
  );

  // MSG-42, MSG-43: tickets with activity since `ts`.
  r.get(
    '/ticket/data/sync',
    { config: { auth: 'user' }, schema: { querystring: SyncQuery, response: { 200: SyncAnswer } } },
    async (req) => {
      const auth = req.auth!;
      const now = Date.now();
      const rows = await db
        .selectFrom('tickets')
        .select((eb) => [
          'tickets.id',
          'tickets.updated_at',
          eb
            .selectFrom('messages')
            .select((m) => m.fn.max('messages.id').as('last'))
            .whereRef('messages.ticket_id', '=', 'tickets.id')
            .where('messages.account_id', '=', auth.accountId)
            .as('last_message_id'),
        ])
        .where('tickets.account_id', '=', auth.accountId)
        .where('tickets.updated_at', '>', Math.floor(req.query.ts * 1000))
        // A Workspace chat's activity only to its members, as the ticket lists show it.
        .where((eb) => ticketVisibleTo(eb, { accountId: auth.accountId, userId: auth.userId }))
        .orderBy('tickets.updated_at', 'desc')
        .limit(200)
        .execute();
      return {
        ...ok,
        tickets: rows.map((t) => ({
          id: Number(t.id),
          updated_at: Number(t.updated_at),
          last_message_id: Number(t.last_message_id ?? 0),
        })),
        ts: Math.floor(now / 1000),
      };
    },
  );

  // RT-40, RT-41, RT-42: deletions and session merges after an event id (the auth check's `event_id`).
  r.get(
    '/event/:eventId',
    {
      config: { auth: 'user' },
      schema: {
        params: z.object({ eventId: z.coerce.number().int().min(0) }),
        response: { 200: EventItemsAnswer },
      },
    },
    async (req) => {
      const auth = req.auth!;
      const rows = await db
        .selectFrom('events')
        .select(['seq', 'type', 'payload', 'rooms'])
        .where('account_id', '=', auth.accountId)
        .where('seq', '>', req.params.eventId)
        .where('type', 'in', ['message.deleted', 'livechat.merged'])
        .orderBy('seq')
        .limit(1000)
        .execute();
      // Only what the caller's sockets would have been sent (as /api/events): a deletion in a Workspace chat
      // went to its members' rooms, not the account's.
      const mine = new Set([rooms.account(auth.accountId), rooms.user(auth.userId)]);
      const seen = rows.filter((e) => (JSON.parse(e.rooms) as string[]).some((r) => mine.has(r)));
      const data = seen.map((e) => {
        const p = JSON.parse(e.payload) as Record<string, number | null | undefined>;
        const deleted = e.type === 'message.deleted';
        return {
          id: Number(e.seq),
          action: deleted ? ('delete_message' as const) : ('merge_session' as const),
          ref_id: Number((deleted ? p.messageId : p.ref_id) ?? 0),
          ticket_id: Number((deleted ? p.ticketId : p.ticket_id) ?? 0),
          session_id: p.session_id === undefined || p.session_id === null ? null : Number(p.session_id),
        };
      });
      return { ...ok, data, head: await headSeq(db, auth.accountId) };
    },
  );

  // Notes on the ticket as a whole (the side panel's Notes).
  ticketNoteRoutes(app, { db, conversations });

  // MSG-19: notes, reactions, pins.
  r.post(
    '/api/ticket/note/add',
    { config: { auth: 'user' }, schema: { body: AddNoteInput, response: { 200: NoteAnswer } } },
    async (req) => ({ ...ok, data: await addNote(db, conversations, req.auth!, req.body) }),
  );
  r.post(
    '/api/ticket/note/edit',
    { config: { auth: 'user' }, schema: { body: EditNoteInput, response: { 200: NoteAnswer } } },
    async (req) => ({ ...ok, data: await editNote(db, conversations, req.auth!, req.body) }),
  );
  r.post(
    '/api/ticket/note/delete',
    { config: { auth: 'user' }, schema: { body: DeleteNoteInput, response: { 200: OkAnswer } } },
    async (req) => {
      await deleteNote(db, conversations, req.auth!, req.body);
      return ok;
    },
  );
  r.post(
    '/api/ticket/reaction',
    { config: { auth: 'user' }, schema: { body: ReactionInput, response: { 200: OkAnswer } } },
    async (req) => {
      await react(db, conversations, req.auth!, req.body);
      return ok;
    },
  );
  r.post(
    '/api/ticket/pin',
    { config: { auth: 'user' }, schema: { body: PinInput, response: { 200: OkAnswer } } },
    async (req) => {
      await pin(db, conversations, req.auth!, req.body);
      return ok;
    },
  );

  // MSG-21, MSG-22 (design): custom emoji of the account, `{name, url}`; none can be added yet.
  r.get(
    '/emoji/custom',
    {
      config: { auth: 'user' },
      schema: {
        response: {
          200: z.object({
            result: z.literal('success'),
            data: z.array(z.object({ name: z.string(), url: z.string() })),
          }),
        },
      },
    },
    async () => ({ ...ok, data: [] }),
  );

  // MSG-49..53: translation through the configured provider, stored per language on each message.
  for (const path of ['/api/translate', '/api/translate2'])
    r.post(
      path,
      { config: { auth: 'user' }, schema: { body: TranslateInput, response: { 200: TranslateAnswer } } },
      async (req) => {
        const auth = req.auth!;
        const t = await readableTicket(db, conversations, req, req.body.ticketId);
        // CRYPT-11: an encrypted conversation's plaintext never goes to a translator.
        if (isEncrypted(t.encryption_method)) throw badRequest(ENCRYPTION_STRINGS.noTranslation);
        const { text, target, source } = req.body;
        const translator = await deps.translators.forAccount(db, auth.accountId);
        if (!translator) return { result: 'not_configured' as const, description: MESSAGE_STRINGS.translationOff };
        const translated = await translator.translate(
          text.map((t) => t.message),
          target,
          source,
        );
        await storeTranslations(
          db,
          auth.accountId,
          req.body.ticketId,
          target,
          text.map((t, i) => ({ id: t.id, translated: translated[i]! })),
        );
        return {
          ...ok,
          target,
          data: text.map((t, i) => ({ id: t.id, message: t.message, translated: translated[i]! })),
        };
      },
    );
  r.post(
    '/api/language/set',
    {
      config: { auth: 'user' },
      schema: {
        body: LanguageInput,
        response: { 200: z.object({ result: z.literal('success'), language: z.string() }) },
      },
    },
    async (req) => {
      await readableTicket(db, conversations, req, req.body.ticketId);
      await setTicketLanguage(db, req.auth!.accountId, req.body.ticketId, req.body.lang);
      return { ...ok, language: req.body.lang };
    },
  );

  replyRoutes(app, deps);
  uploadRoutes(app, deps);
  await sweepIncoming(deps.dataDir);
}
