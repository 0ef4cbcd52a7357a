import { z } from 'zod';

/** SEARCH-05: results per page of each group; the page index is 0-based. */
export const SEARCH_PAGE_SIZE = 6;
/** The longest value of one search parameter; longer text is refused with `SEARCH_STRINGS.tooLong`. */
export const SEARCH_MAX_LENGTH = 200;
/** Words of one search parameter that are used; the rest are ignored (a query stays cheap whatever is typed). */
export const SEARCH_MAX_WORDS = 8;
/**
 * The most matches of a group that are ranked by relevance. A search matching more (a short, common prefix)
 * ranks the newest this many and its count reads "1000+" (the answer's `...Capped` flag): a page comes back
 * in a bounded time however many messages the account holds.
 */
export const SEARCH_RANKED_MAX = 1000;
/** Words shorter than this are matched whole, not as a prefix (a one-letter prefix matches nearly everything). */
export const SEARCH_MIN_PREFIX = 2;

/** SEARCH-01: the chips and the key each inserts (Ticket inserts `number:`, the key a ticket is found by). */
export const SEARCH_CHIPS = [
  { label: 'Contact', key: 'contact' },
  { label: 'From', key: 'from' },
  { label: 'Label', key: 'label' },
  { label: 'Ticket', key: 'number' },
] as const;
/** SEARCH-06: the token keys. */
export const SEARCH_KEYS = ['contact', 'from', 'label', 'number', 'message'] as const;
export type SearchKey = (typeof SEARCH_KEYS)[number];

/** SEARCH-04: the result groups, in the order shown. */
export const SEARCH_GROUPS = ['Label', 'Contact', 'Agent', 'Message', 'Ticket', 'Live Chat'] as const;

export const SEARCH_STRINGS = {
  clear: 'Clear',
  enter: 'Enter',
  placeholder: 'Search',
  title: 'Search',
  /** Design: nothing in any group. */
  noResults: 'No results',
  tooLong: `Search text is too long (${SEARCH_MAX_LENGTH} characters at most).`,
  badNumber: 'A ticket number is digits only.',
  badIndex: 'The page index is a whole number, a multiple of 6.',
} as const;

/**
 * Splits what was typed into `key:value` tokens and the free text (SEARCH-06). A value runs to the next
 * `key:`; a value may be quoted ("VIP customers"). Unknown `word:` stays free text. Used by the modal and by
 * the tests, so both read a query the same way.
 */
export function parseSearch(text: string): { free: string; terms: Partial<Record<SearchKey, string>> } {
  const terms: Partial<Record<SearchKey, string>> = {};
  const free: string[] = [];
  const re = /(?:^|\s)(contact|from|label|number|message):(?:"([^"]*)"?|(\S*))/gi;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    free.push(text.slice(last, m.index));
    const key = m[1]!.toLowerCase() as SearchKey;
    const value = (m[2] ?? m[3] ?? '').trim();
    if (value) terms[key] = terms[key] ? `${terms[key]} ${value}` : value;
    last = m.index + m[0].length;
  }
  free.push(text.slice(last));
  return { free: free.join(' ').replace(/\s+/g, ' ').trim(), terms };
}

const text = z.string().max(SEARCH_MAX_LENGTH, SEARCH_STRINGS.tooLong).optional();
const index = z.coerce
  .number({ message: SEARCH_STRINGS.badIndex })
  .int(SEARCH_STRINGS.badIndex)
  .min(0, SEARCH_STRINGS.badIndex)
  .max(6_000_000, SEARCH_STRINGS.badIndex)
  .refine((n) => n % SEARCH_PAGE_SIZE === 0, SEARCH_STRINGS.badIndex)
  .default(0);

/**
 * SEARCH-08, SEARCH-12: `GET /api/search/data`. entity is the free text; ticket the `number:` term; label,
 * username (`from:`) and message the terms of those keys; contact (design: the spec lists no parameter for
 * it) the `contact:` term. search_index and search_message_index are 6 x the page index of tickets (and live
 * chats) and of messages.
 */
export const SearchQuery = z.object({
  entity: text,
  ticket: z
    .string()
    .max(SEARCH_MAX_LENGTH, SEARCH_STRINGS.tooLong)
    .regex(/^\s*\d{0,15}\s*$/, SEARCH_STRINGS.badNumber)
    .optional(),
  label: text,
  username: text,
  message: text,
  contact: text,
  search_index: index,
  search_message_index: index,
});
export type SearchQuery = z.infer<typeof SearchQuery>;

/** SEARCH-09: a ticket (or live chat) found. `snippet` is escaped HTML with only `<mark>` added. */
export const SearchTicket = z.object({
  id: z.number(),
  ticket_number: z.number(),
  title: z.string(),
  channel: z.string(),
  name: z.string(),
  closed: z.number(),
  updated_at: z.number(),
  snippet: z.string(),
});
export type SearchTicket = z.infer<typeof SearchTicket>;
/** SEARCH-09: a message found: id, channel, ticket_number, message (escaped HTML, `<mark>` around matches). */
export const SearchMessage = z.object({
  id: z.number(),
  ticket_id: z.number(),
  channel: z.string(),
  ticket_number: z.number(),
  message: z.string(),
  sender: z.string(),
  sender_name: z.string(),
  created_at: z.number(),
});
export type SearchMessage = z.infer<typeof SearchMessage>;
/** SEARCH-09: Contact uid, id, name, salutation (design: a customer as its latest ticket names it). */
export const SearchContact = z.object({
  uid: z.string(),
  id: z.number(),
  name: z.string(),
  salutation: z.string(),
});
export type SearchContact = z.infer<typeof SearchContact>;
/** SEARCH-09: Agent id, name, username. */
export const SearchAgent = z.object({ id: z.number(), name: z.string(), username: z.string() });
export type SearchAgent = z.infer<typeof SearchAgent>;
export const SearchLabel = z.object({ id: z.number(), name: z.string(), color: z.string() });
export type SearchLabel = z.infer<typeof SearchLabel>;

/** SEARCH-08: post, message, postCount, messageCount; and the other groups of SEARCH-04. */
export const SearchAnswer = z.object({
  result: z.literal('success'),
  post: z.array(SearchTicket),
  postCount: z.number(),
  message: z.array(SearchMessage),
  messageCount: z.number(),
  liveChat: z.array(SearchTicket),
  liveChatCount: z.number(),
  label: z.array(SearchLabel),
  contact: z.array(SearchContact),
  agent: z.array(SearchAgent),
  /** The group matched more than SEARCH_RANKED_MAX: its count is that many and its pages rank the newest. */
  postCountCapped: z.boolean().optional(),
  messageCountCapped: z.boolean().optional(),
  liveChatCountCapped: z.boolean().optional(),
  /** CRYPT-11: set when the account has encrypted conversations, whose messages were not searched: why. */
  encrypted: z.string().optional(),
});
export type SearchAnswer = z.infer<typeof SearchAnswer>;
