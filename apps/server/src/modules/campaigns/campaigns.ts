import {
  type Campaign,
  type CampaignDetail,
  type CampaignInput,
  type CampaignSummary,
  CAMPAIGN_STRINGS as S,
  TICKET_STATUS,
} from '@parley/contracts';
import { sql } from 'kysely';
import type { AuthContext } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import { lockAccount } from '../../platform/db/locks.js';
import { conflict, notFound } from '../../platform/http/errors.js';
import { runCommand, type Trx } from '../../platform/outbox/index.js';
import { recordAudit } from '../audit/recordAudit.js';

const toCampaign = (r: { id: number | bigint; name: string; created_at: number | bigint }): Campaign => ({
  id: Number(r.id),
  name: r.name,
  created_at: Number(r.created_at),
});

/** Tickets of a campaign not resolved or closed (custom statuses count as open: still being worked); a campaign
 * without tickets has one joined row of nulls, counted as none. */
const notDone = sql<number>`sum(case when t.id is null or t.closed in (${TICKET_STATUS.resolved}, ${TICKET_STATUS.closed}) then 0 else 1 end)`;

/** TICKET-10: one page of the account's campaigns, newest first, with their ticket counts, and how many there are. */
export async function listCampaigns(
  db: DB,
  accountId: number,
  pageSize: number,
  page: number,
): Promise<{ data: CampaignSummary[]; total: number }> {
  const [total, rows] = await Promise.all([
    db
      .selectFrom('campaigns')
      .where('account_id', '=', accountId)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('campaigns as c')
      .leftJoin('tickets as t', (j) => j.onRef('t.campaign_id', '=', 'c.id').onRef('t.account_id', '=', 'c.account_id'))
      .select((eb) => ['c.id', 'c.name', 'c.created_at', eb.fn.count<number>('t.id').as('tickets'), notDone.as('open')])
      .where('c.account_id', '=', accountId)
      .groupBy(['c.id', 'c.name', 'c.created_at'])
      .orderBy('c.id', 'desc')
      .limit(pageSize)
      .offset((page - 1) * pageSize)
      .execute(),
  ]);
  return {
    data: rows.map((r) => ({ ...toCampaign(r), tickets: Number(r.tickets), open: Number(r.open ?? 0) })),
    total: Number(total.n),
  };
}

async function campaignRow(db: DB | Trx, accountId: number, id: number) {
  const row = await db
    .selectFrom('campaigns')
    .select(['id', 'name', 'created_at'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound(S.notFound);
  return row;
}

/** A campaign and how its tickets stand: by status and by channel (most tickets first). */
export async function campaignDetail(db: DB, accountId: number, id: number): Promise<CampaignDetail> {
  const campaign = toCampaign(await campaignRow(db, accountId, id));
  const [byStatus, byChannel] = await Promise.all([
    db
      .selectFrom('tickets')
      .select((eb) => ['closed', eb.fn.countAll<number>().as('n')])
      .where('account_id', '=', accountId)
      .where('campaign_id', '=', id)
      .groupBy('closed')
      .execute(),
    db
      .selectFrom('tickets')
      .select((eb) => ['channel', eb.fn.countAll<number>().as('n')])
      .where('account_id', '=', accountId)
      .where('campaign_id', '=', id)
      .groupBy('channel')
      .execute(),
  ]);
  const count = (code: number) =>
    byStatus.filter((r) => Number(r.closed) === code).reduce((a, r) => a + Number(r.n), 0);
  const tickets = byStatus.reduce((a, r) => a + Number(r.n), 0);
  const resolved = count(TICKET_STATUS.resolved);
  const closed = count(TICKET_STATUS.closed);
  return {
    campaign,
    figures: {
      tickets,
      open: tickets - resolved - closed,
      pending: count(TICKET_STATUS.pending),
      resolved,
      closed,
      channels: byChannel
        .map((r) => ({ channel: r.channel, tickets: Number(r.n) }))
        .sort((a, b) => b.tickets - a.tickets || a.channel.localeCompare(b.channel)),
    },
  };
}

/** Names are unique in an account whatever their case; the account's writers take turns while this is checked. */
async function assertNameFree(trx: Trx, accountId: number, name: string, except?: number) {
  await lockAccount(trx, accountId);
  let q = trx
    .selectFrom('campaigns')
    .select('id')
    .where('account_id', '=', accountId)
    .where(sql`lower(name)`, '=', name.toLowerCase());
  if (except !== undefined) q = q.where('id', '!=', except);
  if (await q.executeTakeFirst()) throw conflict(S.nameTaken(name));
}

export function createCampaign(db: DB, auth: AuthContext, input: CampaignInput): Promise<Campaign> {
  return runCommand(db, async (trx) => {
    await assertNameFree(trx, auth.accountId, input.name);
    const row = await trx
      .insertInto('campaigns')
      .values({ account_id: auth.accountId, name: input.name, created_at: Date.now() })
      .returning(['id', 'name', 'created_at'])
      .executeTakeFirstOrThrow();
    await audit(trx, auth, 'campaign.created', { id: Number(row.id), name: row.name });
    return toCampaign(row);
  });
}

export function renameCampaign(db: DB, auth: AuthContext, id: number, input: CampaignInput): Promise<Campaign> {
  return runCommand(db, async (trx) => {
    const before = await campaignRow(trx, auth.accountId, id);
    await assertNameFree(trx, auth.accountId, input.name, id);
    await trx
      .updateTable('campaigns')
      .set({ name: input.name })
      .where('account_id', '=', auth.accountId)
      .where('id', '=', id)
      .execute();
    await audit(trx, auth, 'campaign.renamed', { id, from: before.name, name: input.name });
    return toCampaign({ ...before, name: input.name });
  });
}

/**
 * Deletes an empty campaign. One that still has tickets is refused with how many: its tickets would otherwise
 * lose their campaign without anyone deciding where they belong (and open screens would still show it).
 */
export function deleteCampaign(db: DB, auth: AuthContext, id: number): Promise<void> {
  return runCommand(db, async (trx) => {
    const before = await campaignRow(trx, auth.accountId, id);
    await lockAccount(trx, auth.accountId);
    const left = await trx
      .selectFrom('tickets')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', auth.accountId)
      .where('campaign_id', '=', id)
      .executeTakeFirstOrThrow();
    if (Number(left.n) > 0) throw conflict(S.notEmpty(Number(left.n)));
    await trx.deleteFrom('campaigns').where('account_id', '=', auth.accountId).where('id', '=', id).execute();
    await audit(trx, auth, 'campaign.deleted', { id, name: before.name });
  });
}

const audit = (
  trx: Trx,
  auth: AuthContext,
  action: 'campaign.created' | 'campaign.renamed' | 'campaign.deleted',
  detail: Record<string, unknown>,
) => recordAudit(trx, { accountId: auth.accountId, userId: auth.userId, actor: auth.username, action, detail });
