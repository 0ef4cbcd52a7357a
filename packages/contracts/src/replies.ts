import { z } from 'zod';
import { CHANNELS, type Channel } from './constants.js';
import { TICKET_PRIORITIES } from './tickets.js';

/**
 * Canned replies and macros (beyond the spec; what Zendesk, Freshdesk, Front and Chatwoot offer agents).
 *
 * Variables are written `{{name}}` (spaces inside the braces are allowed: `{{ customer.name }}`). Only the
 * names below exist; any other `{{...}}` in a canned reply's or a macro reply's text is refused when it is
 * saved. A variable with no value on a ticket (a customer without a name) is filled with nothing.
 */
export const REPLY_VARIABLES = {
  'customer.name': "The customer's name",
  'customer.email': "The customer's e-mail address",
  'ticket.number': "The ticket's number",
  'ticket.title': "The ticket's title",
  'agent.name': 'Your name (the agent who sends it)',
} as const;
export type ReplyVariable = keyof typeof REPLY_VARIABLES;
export const REPLY_VARIABLE_NAMES = Object.keys(REPLY_VARIABLES) as ReplyVariable[];

const VARIABLE = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** Every variable name written in the text, in order, repeats included. */
export function replyVariablesIn(text: string): string[] {
  return [...text.matchAll(VARIABLE)].map((m) => m[1]!);
}

/** The first `{{...}}` in the text that is not a known variable, or null. */
export function unknownReplyVariable(text: string): string | null {
  return replyVariablesIn(text).find((n) => !(n in REPLY_VARIABLES)) ?? null;
}

/** The text with each known variable replaced by its value ('' when it has none); unknown ones stay as written. */
export function fillReplyVariables(text: string, values: Partial<Record<ReplyVariable, string>>): string {
  return text.replace(VARIABLE, (all, name: string) =>
    name in REPLY_VARIABLES ? (values[name as ReplyVariable] ?? '') : all,
  );
}

/** The values of the variables for one ticket and the agent who sends. */
export function replyValues(
  ticket: { ticket_number: number; title: string; name: string; email: string },
  agent: { name: string; username: string },
): Record<ReplyVariable, string> {
  return {
    'customer.name': ticket.name,
    'customer.email': ticket.email,
    'ticket.number': String(ticket.ticket_number),
    'ticket.title': ticket.title,
    'agent.name': agent.name || agent.username,
  };
}

export const REPLY_STRINGS = {
  unknownVariable: (name: string) =>
    `Unknown variable {{${name}}}. Use one of: ${REPLY_VARIABLE_NAMES.map((n) => `{{${n}}}`).join(', ')}.`,
  notFound: 'Canned reply not found.',
  shortcutTaken: (shortcut: string) => `The shortcut /${shortcut} is already used by another canned reply.`,
  sharedAdminOnly: 'Only admins can manage shared canned replies.',
  macroNotFound: 'Macro not found.',
  macroNameTaken: 'A macro with this name already exists.',
  runNotFound: 'Macro run not found.',
  notLastRun: 'Only your last macro run can be undone.',
  alreadyUndone: 'This macro run was already undone.',
  ticketNotFound: (id: number) => `Ticket not found: ${id}.`,
  unknownStatus: (status: number) => `The macro sets an unknown status: ${status}.`,
  unknownLabel: (id: number) => `The macro names a label that does not exist or was removed: ${id}.`,
  unknownUser: (username: string) => `The macro assigns an unknown or inactive user: ${username}.`,
  noEmailReply: (ticketNumber: number) =>
    `Ticket #${ticketNumber} is an e-mail ticket with no mailbox to send from or no customer address: a macro cannot e-mail it a reply. Reply to it from the ticket.`,
  ran: (tickets: number) => (tickets === 1 ? 'Macro applied to 1 ticket.' : `Macro applied to ${tickets} tickets.`),
  undone: 'Macro undone.',
  replyKept: (n: number) =>
    n === 1
      ? 'Macro undone. The reply it sent stays: a sent reply cannot be unsent.'
      : `Macro undone. The ${n} replies it sent stay: a sent reply cannot be unsent.`,
  /** Web: the composer's picker and the settings screens. */
  pickerEmpty: 'No canned reply matches.',
  pickerPlaceholder: 'Search canned replies',
  cannedTitle: 'Canned replies',
  macrosTitle: 'Macros',
  runMacro: 'Run macro',
  noMacros: 'No macros yet. Admins create them in Settings -> Macros.',
  undo: 'Undo',
} as const;

const channelCodes = Object.keys(CHANNELS) as [Channel, ...Channel[]];

/** A canned reply: personal (its owner's alone) or shared (the whole account's; admins manage those). */
export const CannedReply = z.object({
  id: z.number(),
  title: z.string(),
  shortcut: z.string(),
  body: z.string(),
  /** The ticket channels it is offered on; [] is every channel. */
  channels: z.array(z.string()),
  shared: z.boolean(),
  /** The owner of a personal reply; null for a shared one. */
  owner_id: z.number().nullable(),
  updated_at: z.number(),
});
export type CannedReply = z.infer<typeof CannedReply>;

export const SHORTCUT_PATTERN = /^[A-Za-z0-9_-]+$/;

export const CannedReplyInput = z.object({
  title: z.string().trim().min(1, 'A title is required.').max(100),
  shortcut: z
    .string()
    .trim()
    .min(1, 'A shortcut is required.')
    .max(40)
    .regex(SHORTCUT_PATTERN, 'A shortcut is letters, digits, - and _ only.'),
  body: z.string().trim().min(1, 'The reply text is required.').max(5000),
  channels: z.array(z.enum(channelCodes)).max(channelCodes.length).default([]),
  shared: z.boolean().default(false),
});
export type CannedReplyInput = z.infer<typeof CannedReplyInput>;

export const CannedReplyQuery = z.object({
  q: z.string().max(100).optional(),
  /** Only the replies offered on this ticket channel. */
  channel: z.enum(channelCodes).optional(),
});
export type CannedReplyQuery = z.infer<typeof CannedReplyQuery>;

export const ReplyIdParams = z.object({ id: z.coerce.number().int().positive() });

export const CannedReplyAnswer = z.object({ result: z.literal('success'), data: CannedReply });
export const CannedReplyListAnswer = z.object({ result: z.literal('success'), data: z.array(CannedReply) });

const labelIds = z.array(z.number().int().positive()).min(1).max(100);

/** One step of a macro. Labels are label ids; the assignee is a list of usernames ([] unassigns). */
export const MACRO_ACTION_SCHEMAS = [
  z.object({ type: z.literal('reply'), text: z.string().trim().min(1, 'The reply text is required.').max(5000) }),
  z.object({ type: z.literal('status'), status: z.number().int().min(0).max(999_999) }),
  z.object({ type: z.literal('add_labels'), labels: labelIds }),
  z.object({ type: z.literal('remove_labels'), labels: labelIds }),
  z.object({ type: z.literal('assignee'), assignee: z.array(z.string().min(1).max(100)).max(50) }),
  z.object({ type: z.literal('priority'), priority: z.enum(TICKET_PRIORITIES) }),
] as const;
export const MacroAction = z.discriminatedUnion('type', MACRO_ACTION_SCHEMAS);
export type MacroAction = z.infer<typeof MacroAction>;
export type MacroActionType = MacroAction['type'];

export const MACRO_ACTION_NAMES: Record<MacroActionType, string> = {
  reply: 'Send a reply',
  status: 'Set status',
  add_labels: 'Add labels',
  remove_labels: 'Remove labels',
  assignee: 'Set assignee',
  priority: 'Set priority',
};

/** A macro: account-wide, managed by admins, run by anyone. */
export const Macro = z.object({
  id: z.number(),
  name: z.string(),
  actions: z.array(MacroAction),
  updated_at: z.number(),
});
export type Macro = z.infer<typeof Macro>;

export const MacroInput = z.object({
  name: z.string().trim().min(1, 'A name is required.').max(100),
  actions: z.array(MacroAction).min(1, 'A macro needs at least one action.').max(20),
});
export type MacroInput = z.infer<typeof MacroInput>;

export const MacroAnswer = z.object({ result: z.literal('success'), data: Macro });
export const MacroListAnswer = z.object({ result: z.literal('success'), data: z.array(Macro) });

export const MacroRunInput = z.object({
  ticket_ids: z.array(z.coerce.number().int().positive()).min(1, 'Choose at least one ticket.').max(100),
});
export type MacroRunInput = z.infer<typeof MacroRunInput>;

export const MacroRunAnswer = z.object({
  result: z.literal('success'),
  description: z.string(),
  data: z.object({ run_id: z.number(), tickets: z.array(z.number()), replies: z.number() }),
});
export type MacroRunAnswer = z.infer<typeof MacroRunAnswer>;

export const MacroUndoAnswer = z.object({
  result: z.literal('success'),
  description: z.string(),
  data: z.object({ tickets: z.array(z.number()), replies_kept: z.number() }),
});
export type MacroUndoAnswer = z.infer<typeof MacroUndoAnswer>;

/** A canned reply is offered on a ticket of this channel. */
export const offeredOn = (reply: Pick<CannedReply, 'channels'>, channel: string) =>
  reply.channels.length === 0 || reply.channels.includes(channel);
