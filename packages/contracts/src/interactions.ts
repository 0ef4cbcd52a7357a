import { z } from 'zod';
import { CHANNEL_CODES } from './tickets.js';

/**
 * Interactions (`/interactions`, design: docs/interactions.md): every interaction of the team in one
 * timeline, newest first. Each item is one of:
 * - `in`: a customer's message on a conversation (any channel but Workspace);
 * - `out`: a message the team sent (an agent, an automation, a bot);
 * - `note`: an internal note, on the ticket or on one of its messages;
 * - `change`: a system message (status, assignment, labels, department, campaign, reopening);
 * - `livechat`: a live chat a visitor started (queued, taken, ended);
 * - `call`: a call an agent's softphone reported.
 */
export const INTERACTION_KINDS = ['in', 'out', 'note', 'change', 'livechat', 'call'] as const;
export type InteractionKind = (typeof INTERACTION_KINDS)[number];

/** Items a page holds by default, and at most. */
export const INTERACTIONS_PAGE = 50;
export const INTERACTIONS_PAGE_MAX = 100;

/** The paging cursor: `<time ms>-<source>-<row id>` of the last item of the previous page. */
export const INTERACTION_CURSOR = /^\d{1,15}-[1-5]-\d{1,15}$/;

export const INTERACTION_STRINGS = {
  badCursor: 'The page cursor is not one this list gave out.',
  badRange: 'The end of the date range is before its start.',
  unknownAgent: 'No such agent in this workspace.',
  tooLong: 'Search text is too long (200 characters at most).',
} as const;

const blank = (v: unknown) => (v === '' || v === null ? undefined : v);
const csv = <T extends z.ZodType>(item: T) =>
  z.preprocess(
    (v) => (typeof v === 'string' ? (v === '' ? undefined : v.split(',').map((x) => x.trim())) : v),
    z.array(item).max(30).optional(),
  );
const ms = z.preprocess(blank, z.coerce.number().int().min(0).max(8.64e15).optional());

/**
 * `GET /api/interactions`. Lists are comma-separated, an empty value means no filter.
 * - `kind`: any of INTERACTION_KINDS; `channel`: channel codes (a live chat is LIVECHAT, a call CALL).
 * - `agent`: one username of the account: what that person did (their replies, notes, calls, the live chats
 *   they took) and what happened on conversations assigned to them (customer messages, changes).
 * - `from` (inclusive) and `to` (exclusive): epoch milliseconds; the web app sends local day boundaries.
 * - `q`: the item's text or its conversation's title contains it (any case); encrypted text is never searched.
 * - `before`: the cursor of the last item already shown; `limit`: 1..100, default 50.
 */
export const InteractionsQuery = z
  .object({
    kind: csv(z.enum(INTERACTION_KINDS)),
    channel: csv(z.enum(CHANNEL_CODES)),
    agent: z.preprocess(blank, z.string().trim().min(1).max(100).optional()),
    from: ms,
    to: ms,
    q: z.preprocess(blank, z.string().max(200, INTERACTION_STRINGS.tooLong).optional()),
    before: z.preprocess(blank, z.string().regex(INTERACTION_CURSOR, INTERACTION_STRINGS.badCursor).optional()),
    limit: z.preprocess(blank, z.coerce.number().int().min(1).max(INTERACTIONS_PAGE_MAX).default(INTERACTIONS_PAGE)),
  })
  .superRefine((q, ctx) => {
    if (q.from !== undefined && q.to !== undefined && q.to < q.from)
      ctx.addIssue({ code: 'custom', path: ['to'], message: INTERACTION_STRINGS.badRange });
  });
export type InteractionsQuery = z.infer<typeof InteractionsQuery>;

/** One item of the timeline. */
export const Interaction = z.object({
  /** Unique in the list (the cursor of this item). */
  key: z.string(),
  kind: z.enum(INTERACTION_KINDS),
  at: z.number(),
  /** Who: a username ('' for the customer, the server or a system change), and the name to show. */
  username: z.string(),
  name: z.string(),
  channel: z.string(),
  /** The conversation it belongs to; null for a live chat still waiting in the queue. */
  ticketId: z.number().nullable(),
  ticketNumber: z.number().nullable(),
  title: z.string(),
  /** One line of the text (markup removed, at most 200 characters); '' when encrypted. */
  text: z.string(),
  /** The conversation is encrypted: the web app shows "Encrypted message" instead of any text. */
  encrypted: z.boolean(),
  /** Live chats: the chat's state (LIVECHAT_STATES). Calls: inbound or outbound. */
  state: z.string(),
  /** Calls: seconds. */
  duration: z.number(),
});
export type Interaction = z.infer<typeof Interaction>;

export const InteractionsAnswer = z.object({
  result: z.literal('success'),
  data: z.array(Interaction),
  /** The cursor for the next page; null at the end. */
  next: z.string().nullable(),
});
export type InteractionsAnswer = z.infer<typeof InteractionsAnswer>;

/** The text of an item in one line: markup and entities dropped, whitespace folded, at most `max` characters. */
export function interactionExcerpt(text: string, max = 200): string {
  const plain = text
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
  return [...plain].length > max ? `${[...plain].slice(0, max - 1).join('')}…` : plain;
}
