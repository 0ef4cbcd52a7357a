import { z } from 'zod';

/**
 * LABEL-03: a ticket label. `level` is the priority level and `sla` the time to answer in minutes, both
 * whole numbers of 0 or more. `removed` labels stay listed so old tickets can show them as
 * "Removed" (LABEL-02); they can no longer be edited.
 */
export const Label = z.object({
  id: z.number(),
  name: z.string(),
  color: z.string(),
  colorDark: z.string(),
  level: z.number(),
  sla: z.number(),
  removed: z.boolean(),
});
export type Label = z.infer<typeof Label>;

/** The spec's words for the labels and settings section (LABEL-04..06, 10, 11, 18). */
export const LABEL_STRINGS = {
  empty: 'Please check all the fields are not empty.',
  wholeNumber: 'Priority level and SLA must be whole number.',
  color: 'Color format is not correct',
  updated: 'Label updated.',
  failed: 'Please check the input.',
  settingsUpdated: 'Settings updated',
  /** LABEL-16 (design): an empty day value. */
  dayEmpty: 'Please enter the number of days.',
  /** LABEL-16 (design): a day value that is not a whole number from 1 to 365. */
  dayWhole: 'The number of days must be a whole number from 1 to 365.',
  removed: 'Removed',
} as const;

/**
 * LABEL-07, LABEL-08: a new label. The spec gives no dark colour; white reads on the dark theme where the
 * light-theme default (black) would not.
 */
export const NEW_LABEL = { name: 'New Label', color: '#000000', colorDark: '#FFFFFF', level: 0, sla: 30 } as const;

export const COLOR_PATTERN = /^#[0-9a-fA-F]{6}$/;
const WHOLE = /^\d+$/;

/** What a label looks like while it is being edited: numbers may still be text from an input. */
export interface LabelDraft {
  name?: unknown;
  color?: unknown;
  colorDark?: unknown;
  level?: unknown;
  sla?: unknown;
}

const text = (v: unknown) => (typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : '');

/** Whole number of 0 or more, given as a number or as digits ("1.5", "-1", "abc", "1e3" are not). */
export const isWholeNumber = (v: unknown) =>
  (typeof v === 'number' ? Number.isInteger(v) && v >= 0 : typeof v === 'string' && WHOLE.test(v.trim())) &&
  Number(v) <= MAX_WHOLE;
/** The largest level or sla the database column holds. */
export const MAX_WHOLE = 2_147_483_647;

/**
 * LABEL-04..06: the first thing wrong with a label, in the spec's words, or null. Empty fields first,
 * then level and sla, then both colours.
 */
export function validateLabel(l: LabelDraft): string | null {
  if ([l.name, l.color, l.colorDark, l.level, l.sla].some((v) => text(v) === '')) return LABEL_STRINGS.empty;
  if (!isWholeNumber(l.level) || !isWholeNumber(l.sla)) return LABEL_STRINGS.wholeNumber;
  if (!COLOR_PATTERN.test(text(l.color)) || !COLOR_PATTERN.test(text(l.colorDark))) return LABEL_STRINGS.color;
  return null;
}

const field = z.union([z.string().max(100), z.number()]).optional();

/**
 * One label to save: with the id of an existing label, or without one (or `isNew`) for a new one. The
 * fields are checked by `validateLabel` so a failure answers in the spec's words.
 */
export const LabelItemInput = z.object({
  id: z.number().int().positive().optional(),
  isNew: z.boolean().optional(),
  name: field,
  color: field,
  colorDark: field,
  level: field,
  sla: field,
});
export type LabelItemInput = z.infer<typeof LabelItemInput>;

/** LABEL-09: `POST /api/label/update`: labels to save and ids of labels to remove. */
export const LabelUpdateInput = z.object({
  labelArray: z.array(LabelItemInput).max(200).default([]),
  delete: z.array(z.number().int().positive()).max(200).default([]),
});
export type LabelUpdateInput = z.infer<typeof LabelUpdateInput>;

/** LABEL-12, LABEL-13: `GET /api/label/get` and the answer of `POST /api/label/update`. */
export const LabelListAnswer = z.object({ result: z.literal('success'), data: z.array(Label) });
/** LABEL-09, LABEL-10: the saved list, with the spec's notice. */
export const LabelUpdateAnswer = LabelListAnswer.extend({ description: z.string() });

/**
 * LABEL-19 (design): `action` names the setting. `duration`: days after which a Resolved ticket is closed
 * automatically (LABEL-16).
 */
export const SETTINGS_ACTIONS = ['duration'] as const;
export const SettingsUpdateInput = z.object({
  action: z.enum(SETTINGS_ACTIONS, { error: 'Unknown setting.' }),
  day: z.union([z.number(), z.string().max(20)]).optional(),
});
export type SettingsUpdateInput = z.infer<typeof SettingsUpdateInput>;

/** Account settings. `duration`: days until a Resolved ticket closes on its own; null when never. */
export const AccountSettings = z.object({ duration: z.number().nullable() });
export type AccountSettings = z.infer<typeof AccountSettings>;
export const SettingsAnswer = z.object({ result: z.literal('success'), data: AccountSettings });
export const SettingsUpdateAnswer = z.object({ result: z.literal('success'), description: z.string() });

/** Payload of `labelsUpdated`: the account's whole label list after a save. */
export interface LabelsUpdated {
  labels: Label[];
}
/** Payload of `settingsChanged` (LABEL-20). */
export interface SettingsChanged {
  settings: AccountSettings;
}

/** LABEL-15, LABEL-16: the day value of the duration setting as a number, or the message saying why not. */
export function parseDay(day: unknown): { ok: true; day: number } | { ok: false; error: string } {
  if (day === undefined || day === null || text(day) === '') return { ok: false, error: LABEL_STRINGS.dayEmpty };
  if (!isWholeNumber(day)) return { ok: false, error: LABEL_STRINGS.dayWhole };
  const n = Number(typeof day === 'string' ? day.trim() : day);
  return n >= 1 && n <= 365 ? { ok: true, day: n } : { ok: false, error: LABEL_STRINGS.dayWhole };
}
