import { z } from 'zod';

/**
 * Forms (see docs/forms.md): each account has a Main form, the public new-ticket page `/new_ticket/{token}`,
 * and may add custom forms of its own (each with its own public link). Every submission opens a MANUAL ticket
 * and is kept as a form entry. `/forms` shows a Main tab plus one tab per custom form (CONTACT-01), each
 * paged: a tab shows `data_per_page` entries a page and numbers them from `start_index` (CONTACT-03,
 * CONTACT-07).
 */
export const FORM_FIELD_TYPES = ['text', 'textarea', 'email', 'phone', 'select', 'date'] as const;
export type FormFieldType = (typeof FORM_FIELD_TYPES)[number];
export const FORM_FIELD_TYPE_LABELS: Record<FormFieldType, string> = {
  text: 'Short text',
  textarea: 'Long text',
  email: 'E-mail address',
  phone: 'Phone number',
  select: 'Choice',
  date: 'Date',
};

/**
 * Keys whose answers also fill the ticket: `name`, `email` and `phone` are the customer's (and find or make
 * the contact), `subject` the ticket's title, `message` its first message.
 */
export const FORM_TICKET_KEYS = ['name', 'email', 'phone', 'subject', 'message'] as const;

export const FORM_LIMITS = {
  name: 100,
  fields: 30,
  label: 100,
  options: 50,
  option: 100,
  answer: 5_000,
  perPageMin: 5,
  perPageMax: 100,
} as const;

export const FORM_STRINGS = {
  mainName: 'Contact us',
  notFound: 'Form not found.',
  adminOnly: 'Only admins can change forms.',
  mainKept: 'The Main form cannot be removed; switch it off instead.',
  keyTaken: (key: string) => `Two fields use the key "${key}". Each field needs its own key.`,
  badKey: 'A key is 1 to 40 lower-case letters, digits or _, starting with a letter.',
  needsOptions: (label: string) => `The choice "${label}" needs at least one option.`,
  // Public page
  closed: 'This form is not taking requests. Please contact us another way.',
  required: (label: string) => `${label} is required.`,
  badEmail: (label: string) => `${label} is not an e-mail address.`,
  badPhone: (label: string) => `${label} is not a phone number.`,
  badDate: (label: string) => `${label} is not a date.`,
  badChoice: (label: string) => `${label} has no such option.`,
  unknownField: (key: string) => `This form has no field "${key}".`,
  tooLong: (label: string) => `${label} is too long (${FORM_LIMITS.answer} characters at most).`,
  tooMany: 'Too many requests from your network. Please try again later.',
  sent: 'Thank you! Your request was received. We will get back to you soon.',
  send: 'Send',
  saved: 'Form saved.',
  noEntries: "No entries yet. Share the form's link and what people send shows here.",
} as const;

export const FormField = z.object({
  key: z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, FORM_STRINGS.badKey),
  label: z.string().trim().min(1, 'Each field needs a label.').max(FORM_LIMITS.label),
  type: z.enum(FORM_FIELD_TYPES),
  required: z.boolean().default(false),
  options: z.array(z.string().trim().min(1).max(FORM_LIMITS.option)).max(FORM_LIMITS.options).default([]),
});
export type FormField = z.infer<typeof FormField>;

/** The Main form of a new account. */
export const DEFAULT_FORM_FIELDS: FormField[] = [
  { key: 'name', label: 'Your name', type: 'text', required: true, options: [] },
  { key: 'email', label: 'E-mail', type: 'email', required: true, options: [] },
  { key: 'phone', label: 'Phone', type: 'phone', required: false, options: [] },
  { key: 'subject', label: 'Subject', type: 'text', required: true, options: [] },
  { key: 'message', label: 'How can we help?', type: 'textarea', required: true, options: [] },
];

/** A form as admins manage it. */
export const FormDef = z.object({
  id: z.number(),
  name: z.string(),
  main: z.boolean(),
  token: z.string(),
  active: z.boolean(),
  fields: z.array(FormField),
  start_index: z.number(),
  data_per_page: z.number(),
  entries: z.number(),
});
export type FormDef = z.infer<typeof FormDef>;

export const FormInput = z.object({
  name: z.string().trim().min(1, 'The form needs a name.').max(FORM_LIMITS.name),
  active: z.boolean().default(true),
  fields: z.array(FormField).min(1, 'A form needs at least one field.').max(FORM_LIMITS.fields),
  start_index: z.number().int().min(0).max(1_000_000).default(1),
  data_per_page: z.number().int().min(FORM_LIMITS.perPageMin).max(FORM_LIMITS.perPageMax).default(20),
});
export type FormInput = z.infer<typeof FormInput>;

/** CONTACT-02, CONTACT-04: an entry: id and form_data, a key-to-value map (a choice is an object with name). */
export const FormValue = z.union([z.string(), z.object({ name: z.string() })]);
export type FormValue = z.infer<typeof FormValue>;
export const FormEntry = z.object({
  id: z.number(),
  form_data: z.record(z.string(), FormValue),
  ticket_id: z.number().nullable(),
  created_at: z.number(),
});
export type FormEntry = z.infer<typeof FormEntry>;

/** CONTACT-03: a custom contact tab: id, name, start_index, data_per_page. */
export const CustomTab = z.object({
  id: z.number(),
  name: z.string(),
  start_index: z.number(),
  data_per_page: z.number(),
});
export type CustomTab = z.infer<typeof CustomTab>;

/** CONTACT-05: `GET /api/forms`: the Main tab's first page, and the custom tabs (ours beside the spec's list). */
export const FormsAnswer = z.object({
  result: z.literal('success'),
  data: z.array(FormEntry),
  main: CustomTab,
  tabs: z.array(CustomTab),
  total: z.number(),
  fields: z.record(z.string(), z.string()),
  /** The field kinds by key (ours): the screen shows a date answer as every date reads. */
  types: z.record(z.string(), z.enum(FORM_FIELD_TYPES)),
});
export type FormsAnswer = z.infer<typeof FormsAnswer>;

/** CONTACT-06: `GET /api/contacts/custom?id&index`: page `index` (0-based) of a tab; total entries. */
export const CustomTabQuery = z.object({
  id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  index: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
export const CustomTabAnswer = z.object({
  result: z.literal('success'),
  total: z.number(),
  data: z.array(FormEntry),
  /** The field labels by key, so the screen names each value. */
  fields: z.record(z.string(), z.string()),
  /** The field kinds by key (ours): the screen shows a date answer (stored YYYY-MM-DD) as every date reads. */
  types: z.record(z.string(), z.enum(FORM_FIELD_TYPES)),
});
export type CustomTabAnswer = z.infer<typeof CustomTabAnswer>;

export const PublicFormAnswer = z.object({
  result: z.literal('success'),
  name: z.string(),
  company: z.string(),
  fields: z.array(FormField),
});
export type PublicFormAnswer = z.infer<typeof PublicFormAnswer>;

/** A public submission; `website` is a field people never see (a bot that fills it is thanked and ignored). */
export const PublicSubmitBody = z.object({
  values: z.record(z.string().max(40), z.string().max(FORM_LIMITS.answer * 2)),
  website: z.string().max(500).optional(),
});
export const PublicSubmitAnswer = z.object({ result: z.literal('success') });

/**
 * CONTACT-08, CONTACT-09 (design): references are what an agent can point a customer to: the account's
 * published knowledge-base and manual articles and its forms that take requests, each with its public
 * address (relative to the site).
 */
export const Reference = z.object({
  kind: z.enum(['article', 'manual', 'form']),
  title: z.string(),
  url: z.string(),
});
export type Reference = z.infer<typeof Reference>;
export const ReferencesAnswer = z.object({ result: z.literal('success'), references: z.array(Reference) });
