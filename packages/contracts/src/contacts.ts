import { z } from 'zod';
import { ID_TYPES } from './shell.js';

/**
 * Contacts: the people the team talks to, one identity across channels (see docs/contacts.md).
 *
 * A contact owns identifiers (an e-mail address, a phone number in E.164, a chat id on a messaging channel).
 * A value belongs to one contact of an account at most; a new conversation links to the contact that owns
 * its address. An identifier is `verified` when a channel proved it (mail came from that address), not when
 * a customer typed it into a form. Two contacts are never merged by themselves: an agent merges them, and
 * the merge is recorded so it can be undone.
 */
export const IDENTIFIER_KINDS = [
  'email',
  'phone',
  'whatsapp',
  'messenger',
  'instagram',
  'x',
  'line',
  'telegram',
] as const;
export type IdentifierKind = (typeof IDENTIFIER_KINDS)[number];

export const IDENTIFIER_LABELS: Record<IdentifierKind, string> = {
  email: 'E-mail',
  phone: 'Phone',
  whatsapp: 'WhatsApp',
  messenger: 'Messenger',
  instagram: 'Instagram',
  x: 'X',
  line: 'LINE',
  telegram: 'Telegram',
};

/** Filters of the contact list. */
export const CONTACT_FILTERS = ['all', 'email', 'phone', 'open', 'none'] as const;
export const CONTACT_FILTER_LABELS: Record<(typeof CONTACT_FILTERS)[number], string> = {
  all: 'All contacts',
  email: 'With an e-mail address',
  phone: 'With a phone number',
  open: 'With open conversations',
  none: 'Without any address',
};
export const CONTACT_PAGE_SIZES = [10, 20, 50] as const;

export const CONTACT_LIMITS = {
  name: 200,
  salutation: 40,
  idNumber: 60,
  notes: 10_000,
  identifier: 200,
  keyword: 200,
  importRows: 20_000,
  importBytes: 5 * 1024 * 1024,
} as const;

export const CONTACT_STRINGS = {
  notFound: 'Contact not found.',
  hidden: 'Contacts are hidden for your account. Ask an admin.',
  nameRequired: 'A contact needs a name or an address.',
  tooLong: (what: string, max: number) => `${what} is too long (${max} characters at most).`,
  badEmail: 'This is not an e-mail address.',
  badPhone: 'This phone number cannot be read. Write it with its country code, like +60 12 345 6789.',
  badIdentifier: 'This address has characters a chat id cannot have.',
  idNumberRequired: 'Write the identity number, or tick "Refuses to provide".',
  identifierTaken: (name: string) => `This address belongs to ${name}. Merge the two contacts instead.`,
  identifierNotFound: 'This address is not on the contact.',
  mergeSelf: 'A contact cannot be merged into itself.',
  mergeGone: 'That contact was merged into another one already.',
  mergeNotFound: 'Merge not found.',
  undone: 'This merge was undone already.',
  importEmpty: 'The file has no rows under its header.',
  importHeader: 'The first line must name the columns: name, and at least one of email or phone.',
  importTooMany: (max: number) => `The file has more than ${max} rows. Split it into smaller files.`,
  importRowEmpty: 'The row has no name, e-mail or phone.',
  importDuplicateInFile: (row: number) => `The same address is on row ${row} of this file.`,
  created: 'Contact created.',
  saved: 'Contact saved.',
  merged: 'Contacts merged.',
  mergeUndone: 'Merge undone: both contacts are back as they were.',
  notYet: 'Nothing yet: contacts appear here as customers write in, or add one.',
} as const;

const trimmed = (max: number, what: string) => z.string().trim().max(max, CONTACT_STRINGS.tooLong(what, max));

export const ContactIdentifier = z.object({
  id: z.number(),
  kind: z.enum(IDENTIFIER_KINDS),
  value: z.string(),
  verified: z.boolean(),
  created_at: z.number(),
});
export type ContactIdentifier = z.infer<typeof ContactIdentifier>;

/** CONTACT-10: uid, id, name, salutation; and ours beside them. */
export const ContactRow = z.object({
  id: z.number(),
  uid: z.string(),
  name: z.string(),
  salutation: z.string(),
  identifiers: z.array(ContactIdentifier),
  conversations: z.number(),
  open: z.number(),
  last_seen_at: z.number(),
  created_at: z.number(),
});
export type ContactRow = z.infer<typeof ContactRow>;

const pageNumber = z.coerce.number().int().min(1).max(1_000_000).default(1);

/** `GET /api/contacts/list` (spec parameters searchBar, keyword, filter, pagination, page). */
export const ContactListQuery = z.object({
  keyword: trimmed(CONTACT_LIMITS.keyword, 'The search').default(''),
  searchBar: trimmed(CONTACT_LIMITS.keyword, 'The search').default(''),
  filter: z.enum(CONTACT_FILTERS).default('all'),
  pagination: z.coerce
    .number()
    .int()
    .refine((n) => (CONTACT_PAGE_SIZES as readonly number[]).includes(n), 'pagination must be 10, 20 or 50.')
    .default(20),
  page: pageNumber,
});
export const ContactListAnswer = z.object({
  result: z.literal('success'),
  contacts: z.array(ContactRow),
  total: z.number(),
  page: z.number(),
  pagination: z.number(),
});
export type ContactListAnswer = z.infer<typeof ContactListAnswer>;

export const ContactConversation = z.object({
  id: z.number(),
  ticket_number: z.number(),
  title: z.string(),
  channel: z.string(),
  closed: z.number(),
  created_at: z.number(),
  updated_at: z.number(),
});
export type ContactConversation = z.infer<typeof ContactConversation>;

export const ContactMerge = z.object({
  id: z.number(),
  merged_id: z.number(),
  merged_name: z.string(),
  by: z.string(),
  created_at: z.number(),
  identifiers: z.number(),
  conversations: z.number(),
});
export type ContactMerge = z.infer<typeof ContactMerge>;

export const ContactDetail = ContactRow.extend({
  id_type: z.string(),
  id_number: z.string(),
  notes: z.string(),
  /** While the contact is merged into another one: that one's id (its page shows the conversations). */
  merged_into: z.number().nullable(),
  updated_at: z.number(),
  conversations_list: z.array(ContactConversation),
  merges: z.array(ContactMerge),
});
export type ContactDetail = z.infer<typeof ContactDetail>;
export const ContactAnswer = z.object({ result: z.literal('success'), contact: ContactDetail });
export type ContactAnswer = z.infer<typeof ContactAnswer>;

/** The id input of the generic dialog (SHELL-46) as contact fields. */
const identity = {
  id_type: z.enum(ID_TYPES).default('None'),
  refused: z.boolean().default(false),
  id_number: trimmed(CONTACT_LIMITS.idNumber, 'The identity number').default(''),
};

export const ContactFields = z.object({
  name: trimmed(CONTACT_LIMITS.name, 'The name').default(''),
  salutation: trimmed(CONTACT_LIMITS.salutation, 'The salutation').default(''),
  notes: z.string().max(CONTACT_LIMITS.notes, CONTACT_STRINGS.tooLong('The notes', CONTACT_LIMITS.notes)).default(''),
  ...identity,
});
export type ContactFields = z.infer<typeof ContactFields>;

export const IdentifierInput = z.object({
  kind: z.enum(IDENTIFIER_KINDS),
  value: trimmed(CONTACT_LIMITS.identifier, 'The address').min(1, 'Write the address.'),
});
export type IdentifierInput = z.infer<typeof IdentifierInput>;

export const CreateContactBody = ContactFields.extend({
  identifiers: z.array(IdentifierInput).max(20).default([]),
});
export type CreateContactBody = z.infer<typeof CreateContactBody>;

export const MergeBody = z.object({ from: z.number().int().positive() });
export const MergeAnswer = z.object({ result: z.literal('success'), merge_id: z.number() });

export const ContactIdParams = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });
export const IdentifierIdParams = ContactIdParams.extend({
  identifierId: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER),
});
export const CreatedContactAnswer = z.object({ result: z.literal('success'), id: z.number() });

/** `POST /api/contacts/import`: the file's text (UTF-8) and whether only to check it. */
export const ImportBody = z.object({
  csv: z
    .string()
    .max(CONTACT_LIMITS.importBytes, `The file is too large (${CONTACT_LIMITS.importBytes / 1024 / 1024} MB at most).`),
  dry_run: z.boolean().default(false),
});
export const ImportAnswer = z.object({
  result: z.literal('success'),
  dry_run: z.boolean(),
  rows: z.number(),
  created: z.number(),
  updated: z.number(),
  errors: z.array(z.object({ row: z.number(), message: z.string() })),
});
export type ImportAnswer = z.infer<typeof ImportAnswer>;

/** The columns of the CSV export, also read by the import (name, then any of the others). */
export const CONTACT_CSV_COLUMNS = ['name', 'salutation', 'email', 'phone', 'id_type', 'id_number', 'notes'] as const;

/** Reads CSV (RFC 4180: quoted fields, doubled quotes, CRLF or LF) into rows of fields. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/**
 * One CSV field: quoted when it holds a comma, quote or line break; a leading =, +, - or @ is prefixed with
 * an apostrophe so a spreadsheet opening the export never runs it as a formula.
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
