import {
  AddTicketNoteInput,
  DeleteTicketNoteInput,
  MESSAGE_STRINGS,
  TICKET_NOTE_STRINGS,
  type TicketNote,
  TicketNoteAnswer,
  TicketNotesAnswer,
  TicketNotesParams,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AuthContext } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import { forbidden, notFound } from '../../platform/http/errors.js';
import { appendEvent, runCommand, type Trx } from '../../platform/outbox/index.js';
import type { AudienceTicket, Conversations } from './messages.realtime.js';

type Row = { id: number; ticket_id: number; sender: string; text: string; created_at: number; updated_at: number };

const toNote = (r: Row, names: Map<string, string>): TicketNote => ({
  id: Number(r.id),
  ticketId: Number(r.ticket_id),
  sender: r.sender,
  senderName: names.get(r.sender) || r.sender,
  text: r.text,
  created_at: Number(r.created_at),
  updated_at: Number(r.updated_at),
});

async function displayNames(db: DB | Trx, accountId: number, usernames: string[]) {
  const wanted = [...new Set(usernames)];
  if (wanted.length === 0) return new Map<string, string>();
  const rows = await db
    .selectFrom('users')
    .select(['username', 'name'])
    .where('account_id', '=', accountId)
    .where('username', 'in', wanted)
    .execute();
  return new Map(rows.map((u) => [u.username, u.name]));
}

/** The ticket of the caller's account that they may read (404 otherwise, 403 for a private Workspace chat). */
async function ticketFor(db: DB | Trx, conversations: Conversations, auth: AuthContext, ticketId: number) {
  const t = await db
    .selectFrom('tickets')
    .select(['id', 'channel'])
    .where('account_id', '=', auth.accountId)
    .where('id', '=', ticketId)
    .executeTakeFirst();
  if (!t) throw notFound(MESSAGE_STRINGS.ticketNotFound);
  const ticket = { id: Number(t.id), accountId: auth.accountId, channel: t.channel };
  if (!(await conversations.canRead(db as DB, ticket, auth.userId))) throw forbidden(MESSAGE_STRINGS.cannotRead);
  return ticket;
}

/**
 * A note on a ticket as a whole, inside the caller's transaction (the caller has checked the ticket): the row
 * and `ticket_note.added` to the staff audience (the mention listener hears it).
 */
export async function addTicketNoteIn(
  trx: Trx,
  conversations: Conversations,
  n: { accountId: number; ticket: AudienceTicket; sender: string; senderName: string; text: string },
): Promise<TicketNote> {
  const at = Date.now();
  const row = await trx
    .insertInto('ticket_notes')
    .values({
      account_id: n.accountId,
      ticket_id: n.ticket.id,
      sender: n.sender,
      text: n.text,
      created_at: at,
      updated_at: at,
    })
    .returning(['id', 'ticket_id', 'sender', 'text', 'created_at', 'updated_at'])
    .executeTakeFirstOrThrow();
  const note = toNote(row, new Map([[n.sender, n.senderName]]));
  await appendEvent(trx, {
    accountId: n.accountId,
    type: 'ticket_note.added',
    payload: note,
    realtime: { name: 'ticketNote', rooms: await conversations.staffAudience(trx, n.ticket) },
  });
  return note;
}

/**
 * Notes on a ticket as a whole, for the team (the side panel's Notes). Stored apart from messages, so they
 * are never in a conversation's history and never reach a visitor; events go to the staff audience only.
 * `ticket_note.added` is heard by the notifications' mention listener like a message note's `note.added`.
 */
export function ticketNoteRoutes(app: FastifyInstance, deps: { db: DB; conversations: Conversations }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db, conversations } = deps;

  r.get(
    '/api/ticket/notes/:ticketId',
    { config: { auth: 'user' }, schema: { params: TicketNotesParams, response: { 200: TicketNotesAnswer } } },
    async (req) => {
      const auth = req.auth!;
      const ticket = await ticketFor(db, conversations, auth, req.params.ticketId);
      const rows = await db
        .selectFrom('ticket_notes')
        .select(['id', 'ticket_id', 'sender', 'text', 'created_at', 'updated_at'])
        .where('account_id', '=', auth.accountId)
        .where('ticket_id', '=', ticket.id)
        .orderBy('id')
        .execute();
      const names = await displayNames(
        db,
        auth.accountId,
        rows.map((x) => x.sender),
      );
      return { result: 'success' as const, data: rows.map((x) => toNote(x, names)) };
    },
  );

  r.post(
    '/api/ticket/notes/add',
    { config: { auth: 'user' }, schema: { body: AddTicketNoteInput, response: { 200: TicketNoteAnswer } } },
    async (req) => {
      const auth = req.auth!;
      const note = await runCommand(db, async (trx) => {
        const ticket = await ticketFor(trx, conversations, auth, req.body.ticketId);
        return addTicketNoteIn(trx, conversations, {
          accountId: auth.accountId,
          ticket,
          sender: auth.username,
          senderName: auth.name,
          text: req.body.text,
        });
      });
      return { result: 'success' as const, data: note };
    },
  );

  r.post(
    '/api/ticket/notes/delete',
    {
      config: { auth: 'user' },
      schema: { body: DeleteTicketNoteInput, response: { 200: z.object({ result: z.literal('success') }) } },
    },
    async (req) => {
      const auth = req.auth!;
      await runCommand(db, async (trx) => {
        const n = await trx
          .selectFrom('ticket_notes')
          .select(['id', 'ticket_id', 'sender'])
          .where('account_id', '=', auth.accountId)
          .where('id', '=', req.body.id)
          .executeTakeFirst();
        if (!n) throw notFound(TICKET_NOTE_STRINGS.notFound);
        const ticket = await ticketFor(trx, conversations, auth, Number(n.ticket_id));
        if (n.sender !== auth.username && auth.type !== 'admin') throw forbidden(TICKET_NOTE_STRINGS.notYours);
        await trx
          .deleteFrom('ticket_notes')
          .where('account_id', '=', auth.accountId)
          .where('id', '=', Number(n.id))
          .execute();
        await appendEvent(trx, {
          accountId: auth.accountId,
          type: 'ticket_note.deleted',
          payload: { id: Number(n.id), ticketId: ticket.id },
          realtime: { name: 'ticketNoteDeleted', rooms: await conversations.staffAudience(trx, ticket) },
        });
      });
      return { result: 'success' as const };
    },
  );
}
