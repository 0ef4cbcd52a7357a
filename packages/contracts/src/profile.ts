import { z } from 'zod';
import { EMAIL_CHANNELS } from './constants.js';
import { BOT_NAMES, SENDERS } from './messages.js';

/** PROFILE-02: rows per page of the tickets and live chats lists, and of the activity list. */
export const PROFILE_LIST_PAGE = 10;
export const PROFILE_ACTIVITY_PAGE = 5;

/** PROFILE-05, PROFILE-06: exact texts, typos included. */
export const PROFILE_STRINGS = {
  bot: 'I am a bot. I help send messages, manage tickets and can do much more.',
  visitor: 'This is a visitor who is using live chat from external websites.',
  noProfile: 'There is no such person in this workspace.',
  title: 'Profile',
  tickets: 'Tickets',
  liveChats: 'Live Chats',
  activity: 'Activity',
  level: 'Level',
  exp: 'Exp',
  uid: 'UID',
  none: 'Nothing yet.',
  /** PROFILE-16 (design): the settings card and its errors. */
  photoTitle: 'Profile picture',
  photoHelp: 'A PNG, JPEG, GIF or WebP image. Everyone in your workspace sees it next to your name.',
  photoChoose: 'Upload a new picture',
  photoRemove: 'Remove picture',
  photoSaved: 'Your profile picture was changed.',
  photoRemoved: 'Your profile picture was removed.',
  photoNotImage: 'The profile picture must be an image: PNG, JPEG, GIF or WebP.',
  photoNoUpload: 'Upload the picture first, then choose it.',
} as const;

/**
 * PROFILE-04: bot users and the visitor have no profile lookup; the modal shows a fixed text instead. A
 * customer's messages are sent as `visitor` on every channel: on a live chat that is the visitor of the spec;
 * on any other channel the modal shows the ticket's contact (see `isLiveChatChannel`).
 */
export function profileKind(sender: string): 'bot' | 'visitor' | 'lookup' {
  const s = sender.toLowerCase();
  if ((BOT_NAMES as readonly string[]).includes(s)) return 'bot';
  if (s === SENDERS.visitor) return 'visitor';
  return 'lookup';
}

/**
 * PROFILE-10 (design): which contact field identifies a customer, by the ticket's channel. E-mail channels
 * use the address; phone channels the number; any other channel uses whichever of the two the ticket has.
 */
export const PHONE_CHANNELS = ['WHATSAPP', 'CALL', 'SMS'] as const;
export function contactField(channel: string, has: { email: string; phone: string }): 'email' | 'phone' | null {
  if ((EMAIL_CHANNELS as readonly string[]).includes(channel)) return has.email ? 'email' : null;
  if ((PHONE_CHANNELS as readonly string[]).includes(channel)) return has.phone ? 'phone' : null;
  return has.email ? 'email' : has.phone ? 'phone' : null;
}

/**
 * PROFILE-10 (design): a contact's uid is `email:<address>`, `phone:<number>`, or `ticket:<number>` for a
 * customer with neither. The colon never occurs in a username, so one `username` parameter names either.
 */
export const contactUid = (field: 'email' | 'phone' | null, value: string, ticketNumber: number) =>
  field ? `${field}:${field === 'email' ? value.trim().toLowerCase() : value.trim()}` : `ticket:${ticketNumber}`;
export function parseContactUid(uid: string): { field: 'email' | 'phone' | 'ticket'; value: string } | null {
  const m = /^(email|phone|ticket):(.+)$/.exec(uid);
  return m ? { field: m[1] as 'email' | 'phone' | 'ticket', value: m[2]! } : null;
}

/**
 * PROFILE-10 (design): experience. exp = 10 for each ticket of the person that is Resolved or Closed plus 1
 * for each message they wrote; level n starts at 50 * (n - 1)^2 exp (level 1 at 0, 2 at 50, 3 at 200 ...).
 */
export const expLevel = (exp: number) => Math.floor(Math.sqrt(Math.max(0, exp) / 50)) + 1;
export const expForLevel = (level: number) => 50 * (level - 1) ** 2;

/** PROFILE-07: a ticket or live chat of the profile's lists. `ts` is unix seconds of the last update. */
export const ProfileListItem = z.object({
  id: z.number(),
  ticket_number: z.number(),
  title: z.string(),
  channel: z.string(),
  label: z.array(z.number()),
  ts: z.number(),
  read: z.boolean(),
  name: z.string(),
});
export type ProfileListItem = z.infer<typeof ProfileListItem>;

/** PROFILE-10 (design): one activity entry: a message the person wrote, with its ticket. */
export const ActivityItem = z.object({
  id: z.number(),
  ticket_id: z.number(),
  ticket_number: z.number(),
  title: z.string(),
  channel: z.string(),
  type: z.string(),
  /** The start of the message (at most 140 characters). */
  text: z.string(),
  /** Unix seconds. */
  ts: z.number(),
});
export type ActivityItem = z.infer<typeof ActivityItem>;

/** PROFILE-07, PROFILE-15: who the profile is. `kind` tells a user (agent/admin) from a contact. */
export const ProfileData = z.object({
  kind: z.enum(['user', 'contact']),
  name: z.string(),
  /** A user's username, or a contact's uid (`email:...`, `phone:...`, `ticket:...`); `username` of the list call. */
  uid: z.string(),
  username: z.string(),
  type: z.string(),
  photo: z.string(),
  email: z.string(),
  phone: z.string(),
  status: z.string(),
  /** A contact's channel (of the ticket it was found from); '' for a user. */
  channel: z.string(),
  /** The contact record of a contact found from a ticket (its page: `/contacts/:id`); absent otherwise. */
  contact_id: z.number().nullable().optional(),
});
export type ProfileData = z.infer<typeof ProfileData>;

const offset = z.coerce
  .number({ error: 'offset must be a whole number of 0 or more.' })
  .int('offset must be a whole number of 0 or more.')
  .min(0, 'offset must be a whole number of 0 or more.')
  .max(1_000_000, 'offset is too large.');
const username = z.string().trim().min(1, 'username is required.').max(320);

/** PROFILE-08: `GET /api/ticket/user/list`. */
export const ProfileListQuery = z.object({
  type: z.enum(['ticket', 'livechat'], { error: 'type must be ticket or livechat.' }),
  username,
  offset: offset.default(0),
});
export type ProfileListQuery = z.infer<typeof ProfileListQuery>;
export const ProfileListAnswer = z.object({
  result: z.literal('success'),
  data: z.array(ProfileListItem),
  expLevel: z.number(),
  exp: z.number(),
});
export type ProfileListAnswer = z.infer<typeof ProfileListAnswer>;

/** PROFILE-09: `GET /api/user/profile/:offset` (a contact, from one of its tickets). */
export const ContactProfileParams = z.object({ offset });
export const ContactProfileQuery = z.object({
  mode: z.literal('quick', { error: 'mode must be quick.' }).default('quick'),
  id: z.coerce.number({ error: 'id must be a ticket id.' }).int().positive('id must be a ticket id.'),
  email: z.string().trim().max(320).optional(),
  phone: z.string().trim().max(60).optional(),
});
export type ContactProfileQuery = z.infer<typeof ContactProfileQuery>;
export const ProfileAnswer = z.object({
  result: z.literal('success'),
  data: ProfileData,
  activity: z.array(ActivityItem),
});
export type ProfileAnswer = z.infer<typeof ProfileAnswer>;

/**
 * PROFILE-11, PROFILE-12 (design): `GET /api/user/profile/data/info` is a user's full profile for the
 * modal (data and a page of activity, `offset` rows in); `GET /api/user/profile2/info` is the short user
 * info (name, photo, username) for avatars and the online list.
 */
export const UserProfileQuery = z.object({ username, offset: offset.default(0) });
export type UserProfileQuery = z.infer<typeof UserProfileQuery>;
export const UserInfoQuery = z.object({ username });
export const UserInfoAnswer = z.object({
  result: z.literal('success'),
  data: z.object({ name: z.string(), photo: z.string(), username: z.string() }),
});
export type UserInfoAnswer = z.infer<typeof UserInfoAnswer>;

/** PROFILE-13, PROFILE-14 (design): `GET /agent/{token}`: the account's agents (user info and status). */
export const AgentListAnswer = z.object({
  result: z.literal('success'),
  data: z.array(
    z.object({ id: z.number(), name: z.string(), username: z.string(), photo: z.string(), status: z.string() }),
  ),
});
export type AgentListAnswer = z.infer<typeof AgentListAnswer>;
/** SEARCH-11: `search` and `keyword` narrow the agents by name or username (keyword first). */
export const AgentListQuery = z.object({
  _token: z.string().max(500).optional(),
  search: z.string().max(200, 'search is 200 characters at most.').optional(),
  keyword: z.string().max(200, 'keyword is 200 characters at most.').optional(),
});

/** PROFILE-16 (design): image types a profile picture may be (they get a thumbnail when uploaded). */
export const PROFILE_PHOTO_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/**
 * PROFILE-16 (design): `PUT /api/user/photo`: the caller's profile picture. `file` is the `file[0]` URL that
 * `POST /api/upload` answered for an image the caller uploaded; null removes the picture.
 */
export const SetPhotoInput = z.object({
  file: z.string().trim().min(1, 'file is required.').max(500).nullable(),
});
export type SetPhotoInput = z.infer<typeof SetPhotoInput>;
/** `photo`: the picture's URL (a square-ish JPEG thumbnail) as the auth check and profiles show it, or null. */
export const SetPhotoAnswer = z.object({ result: z.literal('success'), photo: z.string().nullable() });
export type SetPhotoAnswer = z.infer<typeof SetPhotoAnswer>;
