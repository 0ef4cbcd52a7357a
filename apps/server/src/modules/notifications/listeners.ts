import { isLiveChatChannel, type ReceiveNoteEvent, SLA_STRINGS } from '@parley/contracts';
import type { Listener, StoredEvent, Trx } from '../../platform/outbox/index.js';
import type { Conversations } from '../messages/index.js';
import { TICKET_ASSIGNED, type TicketAssigned } from '../tickets/index.js';
import { notifyUsers } from './commands/notifyUsers.js';
import { avatarOf } from './notifications.queries.js';
import { NOTIFY_STRINGS } from './notifications.strings.js';

/**
 * "assigned to you": on `ticket.assigned`, each user recorded in `ticket_assignments` by that
 * change (its rows carry the event's `at`) gets a System notification (not when they assigned themselves). Transactional, so exactly once;
 * the source `assign:<assignment id>` keeps it single even if two events see the same row.
 * "A chat transferred to you": a live chat is moved to another agent by assigning its ticket (the accepting
 * agent is set by the live chat itself, with no assignment row), so an assignment row of a LIVECHAT ticket
 * reads "Chat transferred to you" instead.
 */
export const assignedListener: Listener = {
  name: 'notifications.assigned',
  kind: 'transactional',
  events: [TICKET_ASSIGNED],
  async handle(e: StoredEvent, trx: Trx) {
    const { id: ticketId, at } = e.payload as Partial<TicketAssigned>;
    if (!Number.isInteger(ticketId) || !Number.isInteger(at)) return;
    const rows = await trx
      .selectFrom('ticket_assignments as a')
      .innerJoin('tickets as t', 't.id', 'a.ticket_id')
      .innerJoin('users as u', (j) =>
        j.onRef('u.account_id', '=', 'a.account_id').onRef('u.username', '=', 'a.username'),
      )
      .leftJoin('users as by', (j) =>
        j.onRef('by.account_id', '=', 'a.account_id').onRef('by.username', '=', 'a.assigned_by'),
      )
      .select([
        'a.id',
        'a.username',
        'a.assigned_by',
        'u.id as user_id',
        'by.name as by_name',
        'by.photo as by_photo',
        't.ticket_number',
        't.title',
        't.channel',
      ])
      .where('a.account_id', '=', e.accountId)
      .where('a.ticket_id', '=', ticketId!)
      .where('a.assigned_at', '=', at!)
      .execute();
    for (const r of rows) {
      if (r.assigned_by === r.username) continue;
      const by = r.assigned_by === 'server' ? 'Parley' : r.by_name || r.assigned_by;
      const livechat = isLiveChatChannel(r.channel);
      await notifyUsers(trx, {
        accountId: e.accountId,
        userIds: [Number(r.user_id)],
        category: 'system',
        type: 'others',
        channel: livechat ? 'livechat' : 'ticket',
        title: livechat
          ? SLA_STRINGS.transferredTitle(Number(r.ticket_number))
          : SLA_STRINGS.assignedTitle(Number(r.ticket_number)),
        body: livechat ? NOTIFY_STRINGS.transferredBody(by, r.title) : SLA_STRINGS.assignedBody(by, r.title),
        ticketId,
        ticketNumber: Number(r.ticket_number),
        // NOTIF-10: the picture of whoever assigned it (none for the server's automatic assignment).
        img: r.assigned_by === 'server' ? null : avatarOf(r.assigned_by, r.by_photo),
        source: `assign:${r.id}`,
      });
    }
  },
};

/** `@username` in a note: the name rule of usernames (letters, digits, dot, dash, underscore). */
const MENTION = /(?:^|[^A-Za-z0-9._@-])@([A-Za-z0-9._-]{3,60})/g;

/** The usernames a note mentions, lower-cased; a trailing dot (end of a sentence) is not part of a name. */
export function mentionedNames(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(MENTION)) {
    const name = m[1]!.toLowerCase();
    out.add(name);
    const trimmed = name.replace(/[.]+$/, '');
    if (trimmed.length >= 3) out.add(trimmed);
  }
  return [...out];
}

/**
 * "mentioned in a note": each active user of the account named as `@username` in a note added (or
 * edited) through the messages module, or in a note on the ticket itself, gets a System notification, except the author and users who may not
 * read that conversation. The source `mention:<note id>` tells a user once per note, so an edit tells only
 * the names it adds. Transactional: exactly once.
 */
export const mentionListener = (conversations: Conversations): Listener => ({
  name: 'notifications.mentioned',
  kind: 'transactional',
  // A note on the ticket as a whole (`ticket_note.added`, same payload fields) notifies the same way; its ids
  // are of another table, so its source is `ticket-note-mention:<id>`.
  events: ['note.added', 'note.edited', 'ticket_note.added'],
  async handle(e: StoredEvent, trx: Trx) {
    const note = e.payload as Partial<ReceiveNoteEvent>;
    if (typeof note.text !== 'string' || typeof note.sender !== 'string' || !Number.isInteger(note.id)) return;
    const names = mentionedNames(note.text).filter((n) => n !== note.sender!.toLowerCase());
    if (names.length === 0) return;
    const ticket = await trx
      .selectFrom('tickets')
      .select(['id', 'ticket_number', 'channel'])
      .where('account_id', '=', e.accountId)
      .where('id', '=', Number(note.ticketId))
      .executeTakeFirst();
    if (!ticket) return;
    const users = await trx
      .selectFrom('users')
      .select(['id', 'username', 'name'])
      .where('account_id', '=', e.accountId)
      .where('active', '=', 1)
      .where((eb) => eb.fn('lower', ['username']), 'in', names)
      .execute();
    const author = await trx
      .selectFrom('users')
      .select(['name', 'photo'])
      .where('account_id', '=', e.accountId)
      .where('username', '=', note.sender)
      .executeTakeFirst();
    const audience = { id: Number(ticket.id), accountId: e.accountId, channel: ticket.channel };
    const told: number[] = [];
    for (const u of users) if (await conversations.canRead(trx, audience, Number(u.id))) told.push(Number(u.id));
    await notifyUsers(trx, {
      accountId: e.accountId,
      userIds: told,
      category: 'system',
      type: 'others',
      channel: isLiveChatChannel(ticket.channel) ? 'livechat' : 'ticket',
      title: SLA_STRINGS.mentionedTitle(Number(ticket.ticket_number)),
      body: NOTIFY_STRINGS.mentionedBody(author?.name || note.sender, note.text),
      ticketId: Number(ticket.id),
      ticketNumber: Number(ticket.ticket_number),
      img: avatarOf(note.sender, author?.photo),
      source: `${e.type === 'ticket_note.added' ? 'ticket-note-mention' : 'mention'}:${note.id}`,
    });
  },
});
