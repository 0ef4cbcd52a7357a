import { type AuthCheckAnswer, type HostVariant, isTrialAccount, sipServerOf } from '@parley/contracts';
import type { AuthContext } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import { headSeq } from '../../platform/outbox/index.js';
import { productTitle } from '../accounts/index.js';

/** The running version and its "What's new" text (SHELL-63, SHELL-64). */
export interface AppVersion {
  id: string;
  description: string;
}

/** PLAN-13: a trial ends at trial_ends_at; a paid plan at subscription_ends_at (null: no end). */
export function expiryOf(
  a: { account_type: number; trial_ends_at: number | null; subscription_ends_at: number | null },
  at = Date.now(),
) {
  if (isTrialAccount(a.account_type)) return a.trial_ends_at !== null && a.trial_ends_at <= at ? 'trial' : null;
  return a.subscription_ends_at !== null && a.subscription_ends_at <= at ? 'subscription' : null;
}

/** AUTH-15: the profile and settings the web app needs after sign-in. */
export async function authCheck(
  db: DB,
  auth: AuthContext,
  variant: HostVariant,
  version: AppVersion = { id: '0.0.0', description: '' },
  /** CALL-14: the installation's call server (`SIP_WS_URL`), '' for none. */
  defaultSipWsUrl = '',
): Promise<AuthCheckAnswer> {
  const u = await db
    .selectFrom('users as u')
    .innerJoin('accounts as a', 'a.id', 'u.account_id')
    .select([
      'u.name',
      'u.username',
      'u.type',
      'u.rank',
      'u.permission',
      'u.status',
      'u.second_status',
      'u.totp_enabled',
      'u.photo',
      'u.sip_active',
      'u.sip_number',
      'u.sip_password',
      'a.plan',
      'a.account_type',
      'a.features',
      'a.product_functions',
      'a.require_2fa',
      'a.trial_ends_at',
      'a.subscription_ends_at',
      'a.name as company',
      'a.sip_ws_url',
      'a.acw_seconds',
    ])
    .where('u.account_id', '=', auth.accountId)
    .where('u.id', '=', auth.userId)
    .executeTakeFirstOrThrow();
  const account = {
    account_type: Number(u.account_type),
    trial_ends_at: u.trial_ends_at === null ? null : Number(u.trial_ends_at),
    subscription_ends_at: u.subscription_ends_at === null ? null : Number(u.subscription_ends_at),
  };
  return {
    result: 'success',
    // AUTH-19: '' when the check did not renew the session; the route puts a renewed pair here.
    token: '',
    refresh_token: '',
    userId: auth.userId,
    accountId: auth.accountId,
    adminName: u.name,
    adminUsername: u.username,
    adminUrl: '',
    type: u.type as AuthContext['type'],
    photo: u.photo ?? null,
    timezone: 'UTC',
    // CALL-40: the account's after-call wrap-up (30 s unless set).
    acw_seconds: Number(u.acw_seconds),
    call_prefix: '',
    priority: 0,
    // CALL-02, CHAT-13: no TURN relay is configured in this version.
    turn: '',
    // CALL-02, CALL-03: the user's SIP line (set with `npm run cli -- user:sip`).
    sip: { active: Boolean(u.sip_active), sip_number: u.sip_number, password: u.sip_password },
    // CALL-02, CALL-13, CALL-14: where it registers: the account's own call server, else the installation's.
    ...callServer(u.sip_ws_url, defaultSipWsUrl),
    rank: Number(u.rank),
    permission: JSON.parse(u.permission),
    plan: Number(u.plan),
    ...account,
    expired: expiryOf(account),
    settings: [{ company: u.company, require_2fa: Boolean(u.require_2fa) }],
    event_id: await headSeq(db, auth.accountId),
    // AUTH-19: accounts have no API key yet. CONTACT-12: no contacts parameters are used yet.
    api_key: '',
    contacts_param: '',
    contacts_param2: '',
    status: u.second_status || u.status,
    tfa_enabled: Boolean(u.totp_enabled),
    tfa_setup_required: Boolean(u.require_2fa) && !u.totp_enabled,
    version,
    productDetails: {
      title: productTitle(variant),
      variant,
      product_functions: JSON.parse(u.product_functions),
      features: JSON.parse(u.features),
    },
  };
}

function callServer(own: string | null, fallback: string) {
  const url = own || fallback;
  const at = url ? sipServerOf(url) : null;
  // CALL-02: with no (usable) call server, sipIp and sipPort are still answered, empty.
  return { sip_ws_url: at ? url : '', sip_default: !own, ...(at ?? { sipIp: '', sipPort: 0 }) };
}
