import { concurrentLimit, type LiveChatOffer, rooms } from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import { appendEvent, runCommand, type Trx } from '../../platform/outbox/index.js';
import { announceQueue, onlineAgents, openChatCounts, parseIds } from './queue.js';
import type { TokenAccount } from './settings.js';

type OfferAccount = Pick<TokenAccount, 'accountId' | 'plan' | 'departmentId' | 'offerSeconds' | 'autoOffer'>;

/**
 * Automatic offering (issue 7 routing): each queued chat without an offer goes to the ONLINE agent of the
 * chosen department with the fewest open chats, below the plan's concurrent limit, who has not skipped it
 * and holds no other offer. Ties go to the lower user id. When every agent skipped a chat, it starts over.
 * Returns the offers made.
 */
export async function offerNext(trx: Trx, account: OfferAccount, now: number): Promise<LiveChatOffer[]> {
  if (!account.autoOffer) return [];
  const limit = concurrentLimit(account.plan);
  const queued = await trx
    .selectFrom('livechats')
    .select(['id', 'name', 'offered_user_id', 'skipped'])
    .where('account_id', '=', account.accountId)
    .where('state', '=', 'queued')
    .orderBy('id')
    .execute();
  const agents = await onlineAgents(trx, account.accountId, account.departmentId);
  const open = await openChatCounts(trx, account.accountId);
  const busy = new Set(queued.filter((q) => q.offered_user_id !== null).map((q) => Number(q.offered_user_id)));
  const made: LiveChatOffer[] = [];
  for (const chat of queued) {
    if (chat.offered_user_id !== null) continue;
    const pick = (skipped: number[]) =>
      agents
        .filter((a) => !busy.has(a.id) && !skipped.includes(a.id))
        .filter((a) => limit === null || (open.get(a.username) ?? 0) < limit)
        .sort((a, b) => (open.get(a.username) ?? 0) - (open.get(b.username) ?? 0) || a.id - b.id)[0];
    let skipped = parseIds(chat.skipped);
    let agent = pick(skipped);
    if (!agent && skipped.length > 0) {
      skipped = [];
      agent = pick(skipped);
    }
    if (!agent) continue;
    busy.add(agent.id);
    await trx
      .updateTable('livechats')
      .set({ offered_user_id: agent.id, offered_at: now, skipped: JSON.stringify(skipped) })
      .where('id', '=', chat.id)
      .where('state', '=', 'queued')
      .execute();
    const offer = { livechat_id: Number(chat.id), name: chat.name, expires_at: now + account.offerSeconds * 1000 };
    made.push(offer);
    await appendEvent(trx, {
      accountId: account.accountId,
      type: 'livechat.offered',
      payload: { ...offer, user_id: agent.id },
      realtime: { name: 'liveChatOffer', rooms: [rooms.user(agent.id)] },
    });
  }
  return made;
}

/** The settings offering needs, by account id. */
export async function offerAccount(db: DB | Trx, accountId: number): Promise<OfferAccount | undefined> {
  const row = await db
    .selectFrom('livechat_settings')
    .innerJoin('accounts', 'accounts.id', 'livechat_settings.account_id')
    .select([
      'accounts.plan',
      'livechat_settings.auto_offer',
      'livechat_settings.department_id',
      'livechat_settings.offer_seconds',
    ])
    .where('livechat_settings.account_id', '=', accountId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    accountId,
    plan: Number(row.plan),
    autoOffer: Number(row.auto_offer) === 1,
    departmentId: row.department_id === null ? null : Number(row.department_id),
    offerSeconds: Number(row.offer_seconds),
  };
}

/**
 * Offers not accepted in time: the agent is skipped for that chat and the chat offered to the next.
 * Runs every second on one node (scheduler lease); `now` is injectable for tests.
 */
export async function sweepOffers(db: DB, now = Date.now()): Promise<number> {
  const stale = await db
    .selectFrom('livechats')
    .innerJoin('livechat_settings', 'livechat_settings.account_id', 'livechats.account_id')
    .select(['livechats.id', 'livechats.account_id', 'livechats.offered_at', 'livechat_settings.offer_seconds'])
    .where('livechats.state', '=', 'queued')
    .where('livechats.offered_user_id', 'is not', null)
    .execute();
  const expired = stale.filter((s) => Number(s.offered_at) + Number(s.offer_seconds) * 1000 <= now);
  const accounts = new Set(expired.map((e) => Number(e.account_id)));
  for (const accountId of accounts) {
    await runCommand(db, async (trx) => {
      for (const e of expired.filter((x) => Number(x.account_id) === accountId)) {
        const row = await trx
          .selectFrom('livechats')
          .select(['offered_user_id', 'skipped', 'state'])
          .where('id', '=', e.id)
          .executeTakeFirst();
        if (!row || row.state !== 'queued' || row.offered_user_id === null) continue;
        const skipped = [...new Set([...parseIds(row.skipped), Number(row.offered_user_id)])];
        await trx
          .updateTable('livechats')
          .set({ offered_user_id: null, offered_at: null, skipped: JSON.stringify(skipped) })
          .where('id', '=', e.id)
          .execute();
      }
      const account = await offerAccount(trx, accountId);
      if (account) await offerNext(trx, account, now);
      await announceQueue(trx, accountId);
    });
  }
  return expired.length;
}
