import { z } from 'zod';

/**
 * TICKET-06 (design), TICKET-30: the load call's filters that read more than the ticket row. What each
 * means (docs/tickets.md, "Automatic, reply-time and advanced filters"):
 * - `automatic` 1: the ticket's current assignment was made by the automatic assignment (its assignees are
 *   set and its latest `ticket_assignments` record is round robin or least loaded); 0: it was not (assigned
 *   by a person, or nobody is assigned). The two are complements.
 * - `automaticStatus` 1: the current status was set by the system, not a person: its latest status change
 *   in the audit log has no user (the server's), or it has none and is not Open (a path that changes the
 *   status as a side effect, like ending a live chat, which resolves it). `noAutomaticStatus` 1: the
 *   complement (a person chose it, or the ticket is still at its initial Open). Both at 1 is a 400.
 * - `replyTAT` N (whole minutes, 1 to 525600): the first reply took longer than N minutes after the ticket
 *   was received, or there is no reply yet and N minutes have passed. A reply is a message of an agent (not
 *   the customer's `visitor`, not `server` or `translatebot`, not a system message).
 * - `advFilter`: a JSON list of up to 10 conditions `{field, op, value}`, all of which must hold (see
 *   `AdvCondition`).
 */
export const TICKET_FILTER_STRINGS = {
  badFlag: (name: string) => `${name} must be 0 or 1.`,
  bothAutomaticStatus: 'automaticStatus and noAutomaticStatus cannot both be 1.',
  badReplyTAT: 'replyTAT must be a whole number of minutes from 1 to 525600.',
  badAdvFilter:
    'advFilter must be a JSON list of up to 10 conditions {"field", "op", "value"}: field title, name, email, phone or case_type with op contains, not_contains, is, is_not or starts_with and a text value; or field ticket_number with op is, is_not, gt or lt and a whole number.',
  apptConflict: 'appt=0 cannot be combined with apptStart, apptEnd or apptLessTwoDays.',
  fieldValueWithoutField: 'fieldValue needs field (title, name, email, phone or ticket_number).',
} as const;

/** `advFilter` text fields and what may be asked of them (case-insensitive). */
export const ADV_TEXT_FIELDS = ['title', 'name', 'email', 'phone', 'case_type'] as const;
export const ADV_TEXT_OPS = ['contains', 'not_contains', 'is', 'is_not', 'starts_with'] as const;
export const ADV_NUMBER_OPS = ['is', 'is_not', 'gt', 'lt'] as const;

/** One `advFilter` condition. */
export const AdvCondition = z.union([
  z.strictObject({
    field: z.enum(ADV_TEXT_FIELDS),
    op: z.enum(ADV_TEXT_OPS),
    value: z.string().max(200),
  }),
  z.strictObject({
    field: z.literal('ticket_number'),
    op: z.enum(ADV_NUMBER_OPS),
    value: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  }),
]);
export type AdvCondition = z.infer<typeof AdvCondition>;
const AdvConditions = z.array(AdvCondition).max(10);

const blank = (v: unknown) => (v === '' || v === null ? undefined : v);
const flag = (name: string) =>
  z.preprocess(
    (v) => (v === 'true' ? '1' : v === 'false' ? '0' : blank(v)),
    z.enum(['0', '1'], { error: TICKET_FILTER_STRINGS.badFlag(name) }).optional(),
  );

/** The query fields of the filters above; `TicketLoadQuery` spreads them in. */
export const TicketFilterQueryFields = {
  advFilter: z.preprocess((v, ctx) => {
    const text = blank(v);
    if (text === undefined) return undefined;
    try {
      const parsed: unknown = typeof text === 'string' ? JSON.parse(text) : text;
      if (AdvConditions.safeParse(parsed).success) return parsed;
    } catch {
      // answered below
    }
    ctx.addIssue({ code: 'custom', message: TICKET_FILTER_STRINGS.badAdvFilter });
    return z.NEVER;
  }, AdvConditions.optional()),
  automatic: flag('automatic'),
  automaticStatus: flag('automaticStatus'),
  noAutomaticStatus: flag('noAutomaticStatus'),
  replyTAT: z.preprocess(
    blank,
    z.coerce
      .number({ error: TICKET_FILTER_STRINGS.badReplyTAT })
      .int({ error: TICKET_FILTER_STRINGS.badReplyTAT })
      .min(1, { error: TICKET_FILTER_STRINGS.badReplyTAT })
      .max(525_600, { error: TICKET_FILTER_STRINGS.badReplyTAT })
      .optional(),
  ),
};
