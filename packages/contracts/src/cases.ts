import { z } from 'zod';

/**
 * Case management (`/case`, hidden with hide_case; see docs/cases.md): a case groups the tickets of one
 * customer matter (a claim, a complaint, an order gone wrong) with its type, owner, stage, due date and a
 * timeline of what happened to it.
 */
export const CASE_STAGES = ['new', 'investigating', 'waiting', 'resolved', 'closed'] as const;
export type CaseStage = (typeof CASE_STAGES)[number];
export const CASE_STAGE_NAMES: Record<CaseStage, string> = {
  new: 'New',
  investigating: 'Investigating',
  waiting: 'Waiting on customer',
  resolved: 'Resolved',
  closed: 'Closed',
};
export const CASE_LIMITS = { title: 200, caseType: 100, note: 5000, tickets: 200 } as const;

export const CASE_STRINGS = {
  title: 'Case Management',
  hidden: 'Case management is hidden for your account. Ask an admin.',
  notFound: 'Case not found.',
  ticketNotFound: (n: number) => `There is no ticket #${n}.`,
  ownerNotFound: 'The owner must be an active user of the account.',
  contactNotFound: 'Contact not found.',
  alreadyLinked: (n: number) => `Ticket #${n} is already in this case.`,
  none: 'No cases yet. Make one to follow a customer matter across its tickets.',
  noMatch: 'No case matches.',
} as const;

const id = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);

export const CaseTicket = z.object({
  id: z.number(),
  ticket_number: z.number(),
  title: z.string(),
  channel: z.string(),
  closed: z.number(),
});
export const CaseEventRow = z.object({
  id: z.number(),
  kind: z.string(),
  text: z.string(),
  by: z.string(),
  at: z.number(),
});
export const CaseRow = z.object({
  id: z.number(),
  title: z.string(),
  case_type: z.string(),
  stage: z.enum(CASE_STAGES),
  owner_id: z.number().nullable(),
  owner: z.string(),
  contact_id: z.number().nullable(),
  contact_name: z.string(),
  due_at: z.number().nullable(),
  tickets: z.number(),
  created_at: z.number(),
  updated_at: z.number(),
});
export type CaseRow = z.infer<typeof CaseRow>;
export const CaseDetail = CaseRow.extend({
  ticket_list: z.array(CaseTicket),
  timeline: z.array(CaseEventRow),
});
export type CaseDetail = z.infer<typeof CaseDetail>;

export const CaseListQuery = z.object({
  stage: z.enum(['open', 'all', ...CASE_STAGES]).default('open'),
  mine: z.enum(['0', '1']).default('0'),
  q: z.string().trim().max(200).default(''),
});
export const CaseListAnswer = z.object({ result: z.literal('success'), cases: z.array(CaseRow) });
export const CaseAnswer = z.object({ result: z.literal('success'), case: CaseDetail });

export const CaseInput = z.object({
  title: z.string().trim().min(1, 'The case needs a title.').max(CASE_LIMITS.title),
  case_type: z.string().trim().max(CASE_LIMITS.caseType).default(''),
  stage: z.enum(CASE_STAGES).default('new'),
  owner_id: id.nullable().default(null),
  contact_id: id.nullable().default(null),
  due_at: z.number().int().min(0).max(8_640_000_000_000).nullable().default(null),
});
export type CaseInput = z.infer<typeof CaseInput>;
export const CaseTicketBody = z.object({ ticket_number: z.number().int().positive().max(Number.MAX_SAFE_INTEGER) });
export const CaseNoteBody = z.object({ text: z.string().trim().min(1, 'Write the note.').max(CASE_LIMITS.note) });
