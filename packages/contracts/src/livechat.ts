import { z } from 'zod';
import { planLimitWords } from './plans.js';
import { VISITOR_STRINGS } from './visitorStrings.js';

/**
 * Live chat from website visitors (LIVECHAT, VISITOR). A visitor opens the
 * account's public link `/register/livechat/:token` (the token belongs to the account), gets a visitor
 * `csrf` from `/api/livechat/info`, joins the queue over the `/visitor` socket namespace, and an agent
 * accepts the chat, which creates the LIVECHAT ticket.
 */

export * from './livechatHints.js';
export { VISITOR_NAMESPACE, VISITOR_STRINGS } from './visitorStrings.js';

/** The spec's words on the agent side (LIVECHAT-16 and the forced-home notice are in SHELL_STRINGS). */
export const LIVECHAT_STRINGS = {
  title: 'Live Chats',
  showMore: 'Show More',
  empty: 'Its empty for now...',
  takeOne: 'Take one',
  incoming: (n: number) => (n === 1 ? '1 incoming live chat' : `${n} incoming live chats`),
  /** Notice when forced home. */
  removedNotice: "You got removed! You're not longer a participant in this conversation.",
  /** Design (LIVECHAT-06): the loser of a race. */
  taken: 'This live chat was already taken by another agent.',
  /** Design: a message to a live chat that has ended would reach nobody; it is refused with this. */
  endedNoSend: 'This live chat has ended: the visitor can no longer receive messages.',
  /** Design: End chat asks first; the visitor is then asked to rate the chat. */
  endConfirm: 'End this live chat? The visitor is asked to rate it and can no longer receive messages.',
  queueEmpty: 'There is no live chat waiting.',
  /** Design (LIVECHAT-22). */
  limit: (n: number, plan: number) => planLimitWords('concurrentChats', plan, n),
  notFound: 'Live chat not found.',
  notRunning: 'This live chat is not running.',
  end: 'End chat',
  convert: 'Convert to ticket',
  /** PLAN-21 (design): a plan below Basic; the words of SURVEY_STRINGS.notOnPlan. */
  convertNotOnPlan: 'Converting a live chat to a ticket comes with the Basic plan and up: upgrade on the Plans page.',
  merge: 'Merge sessions',
  ended: 'Ended',
  converted: 'Converted',
  offered: 'Offered to you',
  /** Design (automatic offering): the prompt of the agent a chat is offered to. */
  offerTitle: (name: string) => `${name} wants to chat`,
  accept: 'Accept',
  offerLeft: (s: number) => (s === 1 ? '1 second left' : `${s} seconds left`),
  mergeInto: 'Merge another session into this one',
  mergeConfirm: 'Merge',
  mergePick: 'Session to merge',
  merged: 'Sessions merged.',
  sessions: (n: number) => `${n} sessions`,
  settingsTitle: 'Live chat',
  embed: 'Paste this snippet before </body> on your website:',
  link: 'Visitor link',
  autoOffer: 'Offer new chats automatically',
  offerSeconds: 'Seconds an agent has to accept',
  department: 'Department',
  rating: 'Rating',
  reason: 'Reason',
  selectChat: 'Select a live chat to see its messages.',
} as const;

/** Live chat states. queued -> chatting -> ended | converted; offline: a message left with nobody online. */
export const LIVECHAT_STATES = ['queued', 'chatting', 'ended', 'converted', 'offline', 'left'] as const;
export type LiveChatState = (typeof LIVECHAT_STATES)[number];

/** Text limits: a visitor message is plain text, at most 4,000 characters (design). */
export const VISITOR_MESSAGE_MAX = 4_000;
const field = (max: number) => z.string().max(max);
const Token = z.string().min(1).max(100);
const Csrf = z.string().min(1).max(200);

/** `POST /api/livechat/info` (VISITOR-11): token, and the csrf this browser already holds, if any. */
export const LiveChatInfoInput = z.object({ token: Token, csrf: Csrf.optional() });
export const LIVECHAT_INFO_RESULTS = ['success', 'converted', 'rating', 'noAgent', 'closed'] as const;
export const LiveChatInfoAnswer = z.object({
  result: z.enum(LIVECHAT_INFO_RESULTS),
  ticket_id: z.number().nullable(),
  csrf: z.string(),
  /** The account's name and (design) no photo: shown at the top of the visitor page. */
  name: z.string(),
  photo: z.string().nullable(),
  /** Design: true while this visitor waits in the queue (the page goes back to the waiting view). */
  queued: z.boolean(),
  /**
   * PLAN-21 (design): the chat has ended and the visitor may have its transcript e-mailed to the address of
   * its form (the plan includes it, e-mail is set up, not sent yet); absent otherwise.
   */
  transcript: z.boolean().optional(),
});
export type LiveChatInfoAnswer = z.infer<typeof LiveChatInfoAnswer>;

/** The visitor form (VISITOR-28/29/30): four non-empty fields, no format check, optional ic. */
export const VisitorForm = z.object({
  name: field(200).refine((s) => s.trim() !== '', VISITOR_STRINGS.empty),
  phone: field(100).refine((s) => s.trim() !== '', VISITOR_STRINGS.empty),
  email: field(200).refine((s) => s.trim() !== '', VISITOR_STRINGS.empty),
  message: field(VISITOR_MESSAGE_MAX).refine((s) => s.trim() !== '', VISITOR_STRINGS.empty),
  ic: field(100).optional(),
  /** The page the visitor came from (the widget's host page, or the link's referrer); shown to agents. */
  page: field(1000).optional(),
});
export type VisitorForm = z.infer<typeof VisitorForm>;

/** `POST /api/livechat/register` (VISITOR-32): title is the name, des the message (VISITOR-33 design). */
export const LiveChatRegisterInput = z.object({
  _token: Csrf,
  token: Token,
  title: field(300).refine((s) => s.trim() !== '', VISITOR_STRINGS.empty),
  email: field(200).refine((s) => s.trim() !== '', VISITOR_STRINGS.empty),
  phone: field(100).refine((s) => s.trim() !== '', VISITOR_STRINGS.empty),
  name: field(200).refine((s) => s.trim() !== '', VISITOR_STRINGS.empty),
  des: field(VISITOR_MESSAGE_MAX).refine((s) => s.trim() !== '', VISITOR_STRINGS.empty),
  ic: field(100).optional(),
});
export const LiveChatRegisterQuery = z.object({ api: z.enum(['true', 'false']).optional() });
export const LiveChatRegisterAnswer = z.object({ result: z.literal('success'), ticket_id: z.number() });

/** `POST /api/livechat/rate` (VISITOR-40): 1..5 stars; a reason below 5 (VISITOR-38). */
export const LiveChatRateInput = z
  .object({
    _token: Csrf,
    token: Token,
    rating: z.number().int().min(0).max(5),
    reason: field(2000).default(''),
  })
  .superRefine((v, ctx) => {
    if (v.rating < 1) ctx.addIssue({ code: 'custom', message: VISITOR_STRINGS.ratingRequired, path: ['rating'] });
    else if (v.rating < 5 && v.reason.trim() === '')
      ctx.addIssue({ code: 'custom', message: VISITOR_STRINGS.reasonRequired, path: ['reason'] });
  });
/** VISITOR-41 (design): the stored rating back, and the page goes to /end/livechat. */
export const LiveChatRateAnswer = z.object({
  result: z.literal('success'),
  ticket_id: z.number(),
  rating: z.number(),
  reason: z.string(),
});

/** A chat waiting in the queue, as agents see it (LIVECHAT-04). */
export const QueuedChat = z.object({
  id: z.number(),
  name: z.string(),
  message: z.string(),
  department_id: z.number().nullable(),
  queued_at: z.number(),
  /** Automatic offering: the user the chat is offered to right now, if any. */
  offered_to: z.string().nullable(),
  /** Design (automatic offering): that user's id, and when the offer moves on (server clock, ms). */
  offered_user_id: z.number().nullable(),
  offer_expires_at: z.number().nullable(),
});
export type QueuedChat = z.infer<typeof QueuedChat>;
export const LiveChatQueue = z.object({ count: z.number(), queue: z.array(QueuedChat) });
export type LiveChatQueue = z.infer<typeof LiveChatQueue>;

/**
 * Design (automatic offering): the chats one user may take with Take one are those offered to nobody or to
 * them; the banner counts the ones offered to nobody (a chat offered to this user has its own prompt). The
 * queue event lists the first 50 chats and every offered one, so both counts are exact.
 */
export function queueFor(q: LiveChatQueue, userId: number): { open: number; offer: QueuedChat | null } {
  const offered = q.queue.filter((c) => c.offered_user_id !== null);
  return {
    open: Math.max(0, q.count - offered.length),
    offer: offered.find((c) => c.offered_user_id === userId) ?? null,
  };
}

/**
 * A `liveChatOffer` applied to the queue an agent holds (it may come before the queue event that follows
 * it): that chat is offered to this user until `expires_at`.
 */
export function applyOffer(
  q: LiveChatQueue,
  offer: Pick<LiveChatOffer, 'livechat_id' | 'name' | 'message' | 'expires_at'>,
  me: { id: number; username: string },
): LiveChatQueue {
  const mine = { offered_user_id: me.id, offered_to: me.username, offer_expires_at: offer.expires_at };
  if (q.queue.some((c) => c.id === offer.livechat_id))
    return { ...q, queue: q.queue.map((c) => (c.id === offer.livechat_id ? { ...c, ...mine } : c)) };
  const added: QueuedChat = {
    id: offer.livechat_id,
    name: offer.name,
    message: offer.message,
    department_id: null,
    queued_at: 0,
    ...mine,
  };
  return { count: Math.max(q.count, q.queue.length + 1), queue: [...q.queue, added] };
}

/** `acceptLiveChat`: a chat id, or null for Take one (the oldest chat not offered to someone else). */
export type AcceptAnswer = { ok: true; ticket_id: number; livechat_id: number } | { ok: false; error: string };

/** A live chat item of the list (LIVECHAT-12: a ticket item with the chat's own fields). */
export const LiveChatItem = z.object({
  id: z.number(),
  ticket_id: z.number(),
  ticket_number: z.number(),
  title: z.string(),
  name: z.string(),
  state: z.enum(LIVECHAT_STATES),
  agent: z.string(),
  ts: z.number(),
  rating: z.number().nullable(),
  reason: z.string(),
});
export type LiveChatItem = z.infer<typeof LiveChatItem>;
/** LIVECHAT-12: a live chat group (one visitor session; merged sessions join the target group). */
export const LiveChatGroup = z.object({
  session_id: z.number(),
  session_name: z.string(),
  sessions: z.array(z.number()),
  livechats: z.array(LiveChatItem),
  ts: z.number(),
  collapsed: z.boolean(),
});
export type LiveChatGroup = z.infer<typeof LiveChatGroup>;
export const LiveChatListQuery = z.object({ offset: z.coerce.number().int().min(0).max(1_000_000).default(0) });
export const LiveChatListAnswer = z.object({
  result: z.literal('success'),
  data: z.array(LiveChatGroup),
  count: z.number(),
});
export const LIVECHAT_PAGE = 30;

export const LiveChatIdInput = z.object({ id: z.number().int().positive() });
export const LiveChatMergeInput = z.object({
  session_id: z.number().int().positive(),
  ref_id: z.number().int().positive(),
});
export const LiveChatOk = z.object({ result: z.literal('success') });

/** `livechat.merged` (event item merge_session): the chat's ticket, the target session and the merged one. */
export const LiveChatMerged = z.object({ ticket_id: z.number(), session_id: z.number(), ref_id: z.number() });
export type LiveChatMerged = z.infer<typeof LiveChatMerged>;
export const LiveChatEnded = z.object({
  ticket_id: z.number(),
  livechat_id: z.number(),
  state: z.enum(LIVECHAT_STATES),
});
export type LiveChatEnded = z.infer<typeof LiveChatEnded>;
/**
 * `livechat.queued`: a visitor's chat joined the queue (no socket event: agents see the whole queue through
 * `liveChatQueue`); for listeners outside the agents' screens, such as webhooks.
 */
export const LIVECHAT_QUEUED = 'livechat.queued';
export interface LiveChatQueued {
  livechat_id: number;
  name: string;
  email: string;
  phone: string;
  message: string;
  department_id: number | null;
}
export const RemoveLiveChat = z.object({ ticket_id: z.number(), username: z.string() });
export type RemoveLiveChat = z.infer<typeof RemoveLiveChat>;
/** `liveChatOffer` to the one agent offered a chat: who, the first 200 characters, when it moves on. */
export const LiveChatOffer = z.object({
  livechat_id: z.number(),
  name: z.string(),
  message: z.string(),
  expires_at: z.number(),
});
export type LiveChatOffer = z.infer<typeof LiveChatOffer>;

/** The account's live chat settings (token for the link and the widget; automatic offering). */
export const LiveChatSettings = z.object({
  token: z.string(),
  auto_offer: z.boolean(),
  department_id: z.number().nullable(),
  offer_seconds: z.number(),
});
export type LiveChatSettings = z.infer<typeof LiveChatSettings>;
export const LiveChatSettingsInput = z.object({
  auto_offer: z.boolean(),
  department_id: z.number().int().positive().nullable(),
  offer_seconds: z.number().int().min(5).max(600),
});
export type LiveChatSettingsInput = z.infer<typeof LiveChatSettingsInput>;
export const LiveChatSettingsAnswer = z.object({ result: z.literal('success'), data: LiveChatSettings });

/** The visitor socket (`/visitor` namespace): handshake auth. */
export const VisitorHandshake = z.object({ token: Token, csrf: Csrf });
/** A visitor message (plain text only). */
export const VisitorMessageInput = z.object({
  message: z
    .string()
    .max(VISITOR_MESSAGE_MAX)
    .refine((s) => s.trim() !== '', VISITOR_STRINGS.empty),
  clientId: z
    .string()
    .regex(/^queue-[A-Za-z0-9]{10}$/)
    .optional(),
});
export const RegisterQueueInput = VisitorForm.extend({ token: Token, csrf: Csrf });
/** A message as the visitor sees it: no notes, no internal fields. */
export const VisitorMessage = z.object({
  id: z.number(),
  ticketId: z.number(),
  sender: z.string(),
  senderName: z.string(),
  type: z.string(),
  message: z.string(),
  ts: z.number(),
  clientId: z.string().nullable(),
});
export type VisitorMessage = z.infer<typeof VisitorMessage>;

type Ack<T> = (r: ({ ok: true } & T) | { ok: false; error: string }) => void;
/** Events the visitor sends. */
export interface VisitorClientToServer {
  registerQueue: (
    input: z.input<typeof RegisterQueueInput>,
    ack?: Ack<{ queue: number; ticket_id: number | null }>,
  ) => void;
  visitorMessage: (input: z.input<typeof VisitorMessageInput>, ack?: Ack<{ data: VisitorMessage }>) => void;
  visitorHistory: (ack: Ack<{ data: VisitorMessage[]; state: LiveChatState | null }>) => void;
}
/** Events the visitor receives. */
export interface VisitorServerToClient {
  queueNumber: (count: number) => void;
  queueAccepted: (e: { seq: number; data: { ticket_id: number } }) => void;
  newMessage: (e: { seq: number; data: { message: VisitorMessage } }) => void;
  liveChatEnded: (e: { seq: number; data: LiveChatEnded }) => void;
}

/**
 * `GET /api/livechat/visitor/{ticketId}`: who the visitor of a live chat's ticket is, for the details beside
 * the chat. `chats` are the other chats of the same visitor session; `tickets` are the account's other tickets
 * of the same contact (the same e-mail or phone), newest first, 20 at most.
 */
export const VisitorDetailsParams = z.object({
  ticketId: z.coerce
    .number()
    .int()
    .positive()
    .max(2 ** 53 - 1),
});
export const VisitorPastChat = z.object({
  ticket_id: z.number().nullable(),
  ticket_number: z.number().nullable(),
  state: z.string(),
  agent: z.string(),
  queued_at: z.number(),
  message: z.string(),
});
export const VisitorPastTicket = z.object({
  id: z.number(),
  ticket_number: z.number(),
  title: z.string(),
  channel: z.string(),
  closed: z.number(),
  created_at: z.number(),
});
export const VisitorDetails = z.object({
  ticketId: z.number(),
  name: z.string(),
  email: z.string(),
  phone: z.string(),
  ic: z.string(),
  page: z.string(),
  browser: z.string(),
  state: z.string(),
  queued_at: z.number(),
  chats: z.array(VisitorPastChat),
  tickets: z.array(VisitorPastTicket),
});
export type VisitorDetails = z.infer<typeof VisitorDetails>;
export const VisitorDetailsAnswer = z.object({ result: z.literal('success'), data: VisitorDetails });
export const VISITOR_DETAILS_STRINGS = { notFound: 'No live chat visitor for this ticket.' } as const;
