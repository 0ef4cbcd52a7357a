import { z } from 'zod';
import { USER_TYPES } from './constants.js';

const trimmed = (max: number) => z.string().trim().max(max);

/** AUTH-07: `POST /api/auth2`. `client` carries the username (AUTH-02). */
export const SignInInput = z.object({
  client: z.string({ error: 'Username is required.' }).trim().max(100).min(1, 'Username is required.'),
  password: z.string({ error: 'Password is required.' }).max(1000).min(1, 'Password is required.'),
  type: z.enum(['admin', 'agent']).optional(),
  tfa: z
    .string()
    .trim()
    .regex(/^(\d{6}|\d{5}-?\d{5})?$/, 'The two-factor code is 6 digits, or a 10-digit backup code.')
    .optional(),
});
export type SignInInput = z.infer<typeof SignInInput>;

/** AUTH-07, AUTH-08: `result` is "success" or "failed"; `description` says why. */
export const SignInAnswer = z.object({
  result: z.enum(['success', 'failed']),
  token: z.string().optional(),
  refresh_token: z.string().optional(),
  description: z.string(),
});
export type SignInAnswer = z.infer<typeof SignInAnswer>;

/** First run: the workspace and its first admin, offered while the database holds no account. */
export const CreateWorkspaceInput = z.object({
  company: trimmed(120).min(1, 'Company name is required.'),
  name: trimmed(120).min(1, 'Your name is required.'),
  username: trimmed(60)
    .min(3, 'Username must be at least 3 characters.')
    .regex(/^[a-zA-Z0-9._-]+$/, 'Username may use letters, digits, dot, dash and underscore.'),
  email: trimmed(254).email('Enter a valid e-mail address.'),
  password: z.string().min(8, 'Password must be at least 8 characters.').max(1000),
});
export type CreateWorkspaceInput = z.infer<typeof CreateWorkspaceInput>;

/** `GET /api/setup`: whether the server still needs its first workspace, and whether public sign-up is on. */
export const SetupState = z.object({ needed: z.boolean(), signup: z.boolean().default(true) });
export type SetupState = z.infer<typeof SetupState>;

/** AUTH-14: the token may come in the body (`_token`) as well as the cookie or a Bearer header. */
export const AuthCheckInput = z.object({
  _token: z.string().max(200).optional(),
  refresh_token: z.string().max(200).optional(),
});

/**
 * AUTH-15: the auth check answer (spec section 3). Fields not yet backed by a feature carry neutral defaults,
 * so every field the spec lists is present on a success.
 */
export const AuthCheckAnswer = z.object({
  result: z.enum(['success', 'failed']),
  description: z.string().optional(),
  /**
   * AUTH-15, AUTH-19 (design): on every answer. When this check renewed the session (the access token had
   * ended and the refresh token was rotated) they are the new pair, which replaces the stored one (the
   * cookies are set too); otherwise '' meaning "keep the ones you have". The tokens a request presented
   * are never echoed: the cookies are HttpOnly, and an answer readable by scripts must not undo that.
   */
  token: z.string(),
  refresh_token: z.string(),
  userId: z.number().optional(),
  accountId: z.number().optional(),
  adminName: z.string().optional(),
  adminUsername: z.string().optional(),
  adminUrl: z.string().optional(),
  type: z.enum(USER_TYPES).optional(),
  photo: z.string().nullable().optional(),
  /**
   * CALL-02, CHAT-13 (design): the TURN relay (`turn:host:port`) for call and meeting media; '' while the
   * installation has none (there is no TURN setting yet).
   */
  turn: z.string().optional(),
  timezone: z.string().optional(),
  acw_seconds: z.number().optional(),
  call_prefix: z.string().optional(),
  priority: z.number().optional(),
  /** CALL-02: host and port of the call server (`sip_ws_url`); '' and 0 when no call server is set. */
  sipIp: z.string().optional(),
  sipPort: z.number().optional(),
  sip: z.object({ active: z.boolean(), sip_number: z.string(), password: z.string() }).optional(),
  /** CALL-14: the call server's SIP-over-WebSocket address (the account's own, else the installation's), '' for none. */
  sip_ws_url: z.string().optional(),
  /** CALL-13: true when that address is the installation's default (no Authenticate button then). */
  sip_default: z.boolean().optional(),
  rank: z.number().optional(),
  permission: z.array(z.string()).optional(),
  plan: z.number().optional(),
  account_type: z.number().optional(),
  settings: z.array(z.record(z.string(), z.unknown())).optional(),
  event_id: z.number().optional(),
  /**
   * AUTH-19 (design): the account's key for the public API. Accounts have no API key yet, so this is
   * always ''; it must never carry a secret shared with the user (a provider's key stays on the server).
   */
  api_key: z.string().optional(),
  /** CONTACT-11, CONTACT-12 (design): the contacts screen's extra lookup parameters; '' until that screen uses them. */
  contacts_param: z.string().optional(),
  contacts_param2: z.string().optional(),
  status: z.string().optional(),
  tfa_enabled: z.boolean().optional(),
  /** The account requires 2FA and this user has not set it up yet: the web app asks for it first. */
  tfa_setup_required: z.boolean().optional(),
  trial_ends_at: z.number().nullable().optional(),
  subscription_ends_at: z.number().nullable().optional(),
  /** PLAN-14, PLAN-15: set when the trial or the subscription has run out. */
  expired: z.enum(['trial', 'subscription']).nullable().optional(),
  version: z.object({ id: z.string(), description: z.string() }).optional(),
  productDetails: z
    .object({
      title: z.string(),
      variant: z.string(),
      /**
       * SHELL-28 (design): where the full product is, the first host of the combined variant in the
       * host-to-variant map (`https://support.example.com`); '' when none is configured.
       */
      product_url: z.string().optional(),
      /** HOST-07: whether this host may show the chat view (the product's own hosts and local ones). */
      chat_allowed: z.boolean().optional(),
      product_functions: z.record(z.string(), z.array(z.string())),
      features: z.array(z.string()),
    })
    .optional(),
});
export type AuthCheckAnswer = z.infer<typeof AuthCheckAnswer>;

/** AUTH-28: `DELETE /api/user/signout?_token=&current=`; current=1 ends only this session (AUTH-29). */
export const SignOutQuery = z.object({
  _token: z.string().max(200).optional(),
  current: z.enum(['0', '1', 'true', 'false']).optional(),
});
/** The password rule every form and command shares. */
export const NewPassword = z
  .string({ error: 'Password is required.' })
  .min(8, 'Password must be at least 8 characters.')
  .max(1000, 'Password is too long.');

/** `/signup`: a trial account (account_type 0, plan 0) and its admin. */
export const SignUpInput = CreateWorkspaceInput;
export type SignUpInput = z.infer<typeof SignUpInput>;

/** `/password_reset`: step one asks for a link by e-mail; the answer never says whether the address exists. */
export const PasswordResetRequest = z.object({
  email: z.string().trim().max(254).email('Enter a valid e-mail address.'),
});
export const PasswordResetConfirm = z.object({ token: z.string().min(10).max(200), password: NewPassword });
export const ChangePasswordInput = z.object({
  current: z.string().min(1, 'Password is required.').max(1000),
  password: NewPassword,
});

/** One of my sessions, for the settings screen. */
export const SessionItem = z.object({
  id: z.number(),
  current: z.boolean(),
  user_agent: z.string(),
  ip: z.string(),
  created_at: z.number(),
  last_seen_at: z.number(),
});
export type SessionItem = z.infer<typeof SessionItem>;

/** Enrolling asks for the password: a session alone (a stolen one) must not be able to lock the owner out. */
export const TwoFactorSetupInput = z.object({ password: z.string().min(1, 'Password is required.').max(1000) });
export const TwoFactorSetupAnswer = z.object({ secret: z.string(), uri: z.string(), qr: z.string() });
export const TwoFactorEnableInput = z.object({
  code: z
    .string()
    .trim()
    .regex(/^\d{6}$/, 'Enter the 6-digit code from your app.'),
});
export const TwoFactorEnableAnswer = z.object({ result: z.literal('success'), backup_codes: z.array(z.string()) });
export const TwoFactorDisableInput = z.object({ password: z.string().min(1, 'Password is required.').max(1000) });

export const ResultAnswer = z.object({ result: z.enum(['success', 'failed']), description: z.string().optional() });
