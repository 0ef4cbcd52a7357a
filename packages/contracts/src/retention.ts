import { z } from 'zod';
import { CHANNELS } from './constants.js';

/**
 * Data retention and privacy (docs/retention.md): per-account rules that delete or anonymise old data,
 * run daily by the scheduler (or at once by "Run now"), with a preview of what the next run removes; and a
 * contact's data export and erasure.
 */

/** What a rule removes, with the words Settings shows. */
export const RETENTION_TARGETS = {
  closed_tickets: 'Closed tickets with their messages and files',
  recordings: 'Call recordings only',
  visitor_data: 'Visitor data of live chats',
  audit_log: 'Audit log',
} as const;
export type RetentionTarget = keyof typeof RETENTION_TARGETS;
export const RETENTION_TARGET_NAMES = Object.keys(RETENTION_TARGETS) as [RetentionTarget, ...RetentionTarget[]];

export const RETENTION_ACTIONS = { delete: 'Delete', anonymise: 'Anonymise' } as const;
export type RetentionAction = keyof typeof RETENTION_ACTIONS;
export const RETENTION_ACTION_NAMES = Object.keys(RETENTION_ACTIONS) as [RetentionAction, ...RetentionAction[]];

/** A rule keeps data for 1 day at least and ten years at most. */
export const RETENTION_DAYS = { min: 1, max: 3650 } as const;
/** What replaces a customer's name, e-mail, phone and message text when anonymised. */
export const ANONYMISED = 'Anonymised';
/** Ticket numbers the preview shows per rule. */
export const RETENTION_SAMPLE = 10;

/** The customer channels a rule may be limited to (Workspace chats hold no customer data). */
export const RETENTION_CHANNELS = Object.keys(CHANNELS).filter((c) => c !== 'chat') as [string, ...string[]];

export const RETENTION_STRINGS = {
  title: 'Data retention',
  hint: 'Each rule removes or anonymises data older than its number of days. Rules run once a day; the preview shows what the next run removes.',
  addRule: 'Add rule',
  editRule: 'Edit rule',
  target: 'Data',
  action: 'Action',
  days: 'After (days)',
  daysUnit: 'days',
  channel: 'Channel',
  allChannels: 'All channels',
  save: 'Save',
  cancel: 'Cancel',
  edit: 'Edit',
  remove: 'Remove',
  removeConfirm: 'Remove this rule? Nothing is removed by removing a rule.',
  removed: 'Rule removed.',
  scheduled: 'Scheduled',
  manual: 'By hand',
  noRules: 'No retention rules yet: data is kept until it is removed by hand.',
  preview: 'Next run removes',
  previewOfRule: 'This rule would remove now',
  nothing: 'Nothing',
  tickets: 'Tickets',
  runNow: 'Run now',
  runConfirm: 'Run every rule now? What the preview lists is removed for good.',
  lastRuns: 'Last runs',
  noRuns: 'No runs yet.',
  ran: 'Run finished.',
  daysRange: `Enter a number of days from ${RETENTION_DAYS.min} to ${RETENTION_DAYS.max}.`,
  unknownTarget: 'Unknown data to remove.',
  unknownAction: 'Unknown action: delete or anonymise.',
  unknownChannel: 'Unknown channel.',
  channelNotForTarget: 'This data has no channel: choose All channels.',
  auditOnlyDelete: 'The audit log can only be deleted, not anonymised.',
  visitorOnlyLivechat: 'Visitor data belongs to live chats: choose Live Chat or All channels.',
  ruleNotFound: 'Retention rule not found.',
  exportData: 'Export data',
  eraseContact: 'Erase contact',
  eraseTitle: 'Erase this contact?',
  eraseHint:
    "Every conversation, message and file of this contact on every channel is deleted for good, and the contact itself. Type the contact's name or id to confirm.",
  eraseConfirmLabel: 'Name or id',
  erase: 'Erase',
  erased: 'Contact erased.',
  eraseMismatch: "Type the contact's name or id exactly to erase it.",
  contactNotFound: 'Contact not found.',
} as const;

export const RetentionRuleInput = z.object({
  target: z.enum(RETENTION_TARGET_NAMES, { error: RETENTION_STRINGS.unknownTarget }),
  action: z.enum(RETENTION_ACTION_NAMES, { error: RETENTION_STRINGS.unknownAction }),
  days: z
    .number({ error: RETENTION_STRINGS.daysRange })
    .int({ error: RETENTION_STRINGS.daysRange })
    .min(RETENTION_DAYS.min, { error: RETENTION_STRINGS.daysRange })
    .max(RETENTION_DAYS.max, { error: RETENTION_STRINGS.daysRange }),
  channel: z
    .string()
    .refine((c) => c === '' || RETENTION_CHANNELS.includes(c), { error: RETENTION_STRINGS.unknownChannel })
    .default(''),
});
export type RetentionRuleInput = z.input<typeof RetentionRuleInput>;

export const RetentionRule = z.object({
  id: z.number(),
  target: z.enum(RETENTION_TARGET_NAMES),
  action: z.enum(RETENTION_ACTION_NAMES),
  days: z.number(),
  channel: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type RetentionRule = z.infer<typeof RetentionRule>;

/** What one rule removes on the next run: how many items, and a sample of ticket numbers. */
export const RetentionPreviewItem = z.object({
  ruleId: z.number().nullable(),
  target: z.enum(RETENTION_TARGET_NAMES),
  action: z.enum(RETENTION_ACTION_NAMES),
  days: z.number(),
  channel: z.string(),
  count: z.number(),
  ticketNumbers: z.array(z.number()),
});
export type RetentionPreviewItem = z.infer<typeof RetentionPreviewItem>;

export const RetentionRun = z.object({
  id: z.number(),
  trigger: z.enum(['schedule', 'manual']),
  counts: z.array(z.object({ ruleId: z.number(), target: z.enum(RETENTION_TARGET_NAMES), count: z.number() })),
  startedAt: z.number(),
  finishedAt: z.number(),
});
export type RetentionRun = z.infer<typeof RetentionRun>;

export const RetentionIdParams = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });
export const RetentionRuleListAnswer = z.object({ result: z.literal('success'), data: z.array(RetentionRule) });
export type RetentionRuleListAnswer = z.infer<typeof RetentionRuleListAnswer>;
export const RetentionRuleAnswer = z.object({ result: z.literal('success'), data: RetentionRule });
export type RetentionRuleAnswer = z.infer<typeof RetentionRuleAnswer>;
export const RetentionPreviewAnswer = z.object({
  result: z.literal('success'),
  data: z.array(RetentionPreviewItem),
});
export type RetentionPreviewAnswer = z.infer<typeof RetentionPreviewAnswer>;
export const RetentionRunsAnswer = z.object({ result: z.literal('success'), data: z.array(RetentionRun) });
export type RetentionRunsAnswer = z.infer<typeof RetentionRunsAnswer>;
export const RetentionRunAnswer = z.object({ result: z.literal('success'), data: RetentionRun });
export type RetentionRunAnswer = z.infer<typeof RetentionRunAnswer>;

/** `POST /api/contacts/:id/erase`: the contact's name or id, typed to confirm. */
export const EraseContactBody = z.object({ confirm: z.string().max(500) });
export const EraseContactAnswer = z.object({
  result: z.literal('success'),
  tickets: z.number(),
  messages: z.number(),
  files: z.number(),
});
export type EraseContactAnswer = z.infer<typeof EraseContactAnswer>;
