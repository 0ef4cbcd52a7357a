import {
  CHANNEL_OF_KIND,
  CHANNEL_STRINGS,
  CHANNELS,
  type ChannelInput,
  type ChannelView,
  ErrorCode,
  mayUseChannel,
  PLANS,
} from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { lockAccount } from '../../../platform/db/locks.js';
import { AppError, badRequest, conflict, notFound } from '../../../platform/http/errors.js';
import { runCommand, type Trx } from '../../../platform/outbox/index.js';
import { recordAudit } from '../../audit/index.js';
import { canonicalIdentifier } from '../../contacts/index.js';
import type { Secrets } from '../../email/index.js';
import { findConnection, newVerifyToken, newWebhookKey, toView } from '../connections.js';

export interface SaveDeps {
  db: DB;
  secrets: Secrets | null;
  publicUrl: string | undefined;
}

/** The settings kept in the clear, and the secrets given (empty ones left out: a change keeps them). */
function split(input: ChannelInput) {
  const s = input.settings;
  if (s.kind === 'whatsapp')
    return {
      settings: { phoneNumberId: s.phoneNumberId, ...(s.displayNumber ? { displayNumber: s.displayNumber } : {}) },
      given: { accessToken: s.accessToken ?? '', appSecret: s.appSecret ?? '' },
      required: { accessToken: CHANNEL_STRINGS.tokenRequired, appSecret: CHANNEL_STRINGS.appSecretRequired },
    };
  if (s.kind === 'messenger' || s.kind === 'instagram')
    return {
      settings: (s.kind === 'messenger' ? { pageId: s.pageId } : { igAccountId: s.igAccountId }) as Record<
        string,
        string
      >,
      given: { accessToken: s.accessToken ?? '', appSecret: s.appSecret ?? '' },
      required: { accessToken: CHANNEL_STRINGS.pageTokenRequired, appSecret: CHANNEL_STRINGS.appSecretRequired },
    };
  if (s.kind === 'line')
    return {
      settings: {} as Record<string, string>,
      given: { channelSecret: s.channelSecret ?? '', channelAccessToken: s.channelAccessToken ?? '' },
      required: {
        channelSecret: CHANNEL_STRINGS.channelSecretRequired,
        channelAccessToken: CHANNEL_STRINGS.channelAccessTokenRequired,
      },
    };
  if (s.kind === 'sms') {
    // Kept in E.164: it is the From of every reply, and what the customer's phone shows.
    const from = canonicalIdentifier('phone', s.fromNumber);
    if (!from.ok) throw badRequest(CHANNEL_STRINGS.fromNumberShape);
    return {
      settings: { accountSid: s.accountSid, fromNumber: from.value } as Record<string, string>,
      given: { authToken: s.authToken ?? '' },
      required: { authToken: CHANNEL_STRINGS.authTokenRequired },
    };
  }
  if (s.kind === 'x')
    return {
      settings: { userId: s.userId } as Record<string, string>,
      given: {
        consumerKey: s.consumerKey ?? '',
        consumerSecret: s.consumerSecret ?? '',
        accessToken: s.accessToken ?? '',
        accessTokenSecret: s.accessTokenSecret ?? '',
      },
      required: {
        consumerKey: CHANNEL_STRINGS.consumerKeyRequired,
        consumerSecret: CHANNEL_STRINGS.consumerSecretRequired,
        accessToken: CHANNEL_STRINGS.tokenRequired,
        accessTokenSecret: CHANNEL_STRINGS.accessTokenSecretRequired,
      },
    };
  return {
    settings: {} as Record<string, string>,
    given: { botToken: s.botToken ?? '' },
    required: { botToken: CHANNEL_STRINGS.botTokenRequired },
  };
}

async function checkDepartment(trx: Trx, accountId: number, departmentId: number | null | undefined) {
  if (departmentId === null || departmentId === undefined) return;
  const d = await trx
    .selectFrom('departments')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', departmentId)
    .executeTakeFirst();
  if (!d) throw badRequest(CHANNEL_STRINGS.unknownDepartment);
}

/** PLAN-20..22: a plan without the channel is refused with its name and the plan that has it. */
function checkPlan(plan: number, kind: ChannelInput['settings']['kind']) {
  const channel = CHANNEL_OF_KIND[kind];
  if (!mayUseChannel(plan, channel))
    throw new AppError(403, ErrorCode.forbidden, CHANNEL_STRINGS.notOnPlan(plan, channel, CHANNELS[channel]));
}

/** Admin: connects a provider account. Its secrets are sealed with SECRETS_KEY and never answered. */
export async function createConnection(deps: SaveDeps, auth: AuthContext, input: ChannelInput): Promise<ChannelView> {
  const secrets = deps.secrets;
  if (!secrets) throw conflict(CHANNEL_STRINGS.notConfigured);
  const { settings, given, required } = split(input);
  for (const [k, words] of Object.entries(required)) if (!given[k as keyof typeof given]) throw badRequest(words);
  return runCommand(deps.db, async (trx) => {
    const account = await lockAccount(trx, auth.accountId);
    checkPlan(account?.plan ?? PLANS.trial, input.settings.kind);
    await checkDepartment(trx, auth.accountId, input.departmentId);
    const sealed = Object.fromEntries(Object.entries(given).map(([k, v]) => [k, secrets.seal(auth.accountId, v)]));
    const now = Date.now();
    const row = await trx
      .insertInto('channel_connections')
      .values({
        account_id: auth.accountId,
        kind: input.settings.kind,
        name: input.name,
        department_id: input.departmentId ?? null,
        active: input.active === false ? 0 : 1,
        settings: JSON.stringify(settings),
        secrets: JSON.stringify(sealed),
        webhook_key: newWebhookKey(),
        verify_token: newVerifyToken(),
        last_error: null,
        last_error_at: null,
        last_event_at: null,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, {
      accountId: auth.accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'channel.connected',
      detail: { id: Number(row.id), kind: row.kind, name: row.name },
    });
    return toView(row, deps.publicUrl);
  });
}

/** Admin: changes a connection; a secret left empty is kept. The provider cannot change. */
export async function updateConnection(
  deps: SaveDeps,
  auth: AuthContext,
  id: number,
  input: ChannelInput,
): Promise<ChannelView> {
  const secrets = deps.secrets;
  if (!secrets) throw conflict(CHANNEL_STRINGS.notConfigured);
  const { settings, given } = split(input);
  return runCommand(deps.db, async (trx) => {
    const account = await lockAccount(trx, auth.accountId);
    const row = await findConnection(trx, auth.accountId, id);
    if (!row) throw notFound(CHANNEL_STRINGS.notFound);
    if (row.kind !== input.settings.kind) throw badRequest(CHANNEL_STRINGS.kindFixed);
    checkPlan(account?.plan ?? PLANS.trial, input.settings.kind);
    await checkDepartment(trx, auth.accountId, input.departmentId);
    const sealed = JSON.parse(row.secrets) as Record<string, string>;
    const changed = Object.entries(given).filter(([, v]) => v !== '');
    for (const [k, v] of changed) sealed[k] = secrets.seal(auth.accountId, v);
    const updated = await trx
      .updateTable('channel_connections')
      .set({
        name: input.name,
        department_id: input.departmentId ?? null,
        ...(input.active !== undefined ? { active: input.active ? 1 : 0 } : {}),
        settings: JSON.stringify(settings),
        secrets: JSON.stringify(sealed),
        last_error: null,
        last_error_at: null,
        updated_at: Date.now(),
      })
      .where('account_id', '=', auth.accountId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, {
      accountId: auth.accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'channel.updated',
      detail: { id, secretsChanged: changed.map(([k]) => k) },
    });
    return toView(updated, deps.publicUrl);
  });
}

/** Admin: removes a connection; its tickets stay (their replies can no longer leave). */
export async function deleteConnection(db: DB, auth: AuthContext, id: number): Promise<void> {
  await runCommand(db, async (trx) => {
    const row = await findConnection(trx, auth.accountId, id);
    if (!row) throw notFound(CHANNEL_STRINGS.notFound);
    await trx
      .updateTable('tickets')
      .set({ channel_connection_id: null })
      .where('account_id', '=', auth.accountId)
      .where('channel_connection_id', '=', id)
      .execute();
    await trx.deleteFrom('channel_connections').where('account_id', '=', auth.accountId).where('id', '=', id).execute();
    await recordAudit(trx, {
      accountId: auth.accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'channel.removed',
      detail: { id, kind: row.kind, name: row.name },
    });
  });
}
