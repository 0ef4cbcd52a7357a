import { z } from 'zod';
import { NewPassword } from './auth.js';
import { USER_TYPES } from './constants.js';

/** AUTH-18: the permission strings an admin can give a user. */
export const PERMISSIONS = [
  'view_report',
  'hide_chat',
  'hide_kanban',
  'hide_contacts',
  'hide_case',
  'hide_calendar',
  'hide_call',
  'call_settings',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const UserItem = z.object({
  id: z.number(),
  username: z.string(),
  name: z.string(),
  email: z.string(),
  type: z.enum(USER_TYPES),
  rank: z.number(),
  permission: z.array(z.string()),
  departments: z.array(z.number()),
  active: z.boolean(),
  tfa_enabled: z.boolean(),
  status: z.string(),
  created_at: z.number(),
});
export type UserItem = z.infer<typeof UserItem>;

const username = z
  .string({ error: 'Username is required.' })
  .trim()
  .min(3, 'Username must be at least 3 characters.')
  .max(60, 'Username is too long.')
  .regex(/^[a-zA-Z0-9._-]+$/, 'Username may use letters, digits, dot, dash and underscore.');

/** Department ids; a repeated id counts once. */
const departmentIds = z
  .array(z.number().int().positive())
  .max(100)
  .transform((ids) => [...new Set(ids)]);

export const CreateUserInput = z.object({
  username,
  name: z.string().trim().min(1, 'Name is required.').max(120),
  email: z.string().trim().max(254).email('Enter a valid e-mail address.').or(z.literal('')).default(''),
  password: NewPassword,
  type: z.enum(USER_TYPES),
  rank: z.number().int().min(0).max(100).default(0),
  permission: z.array(z.enum(PERMISSIONS)).max(PERMISSIONS.length).optional(),
  departments: departmentIds.default([]),
});
export type CreateUserInput = z.infer<typeof CreateUserInput>;

export const UpdateUserInput = z
  .object({
    name: z.string().trim().min(1, 'Name is required.').max(120),
    email: z.string().trim().max(254).email('Enter a valid e-mail address.').or(z.literal('')),
    type: z.enum(USER_TYPES),
    rank: z.number().int().min(0).max(100),
    permission: z.array(z.enum(PERMISSIONS)).max(PERMISSIONS.length),
    departments: departmentIds,
    active: z.boolean(),
  })
  .partial()
  .refine((v) => Object.keys(v).length > 0, { message: 'Nothing to change.' });
export type UpdateUserInput = z.infer<typeof UpdateUserInput>;

export const UserIdParams = z.object({ id: z.coerce.number().int().positive() });

export const AuditItem = z.object({
  id: z.number(),
  actor: z.string(),
  action: z.string(),
  detail: z.record(z.string(), z.unknown()),
  ip: z.string(),
  created_at: z.number(),
});
export type AuditItem = z.infer<typeof AuditItem>;
export const AuditQuery = z.object({
  before: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /** SHELL-51: a numbered page (1-based, `limit` rows each); the answer then carries the total `count`. */
  page: z.coerce.number().int().min(1).max(1_000_000).optional(),
});
export const AuditAnswer = z.object({
  data: z.array(AuditItem),
  /** Every entry of the account, when a `page` was asked for. */
  count: z.number().optional(),
});
export type AuditAnswer = z.infer<typeof AuditAnswer>;

export const AccountSecurityInput = z.object({ require_2fa: z.boolean() });
