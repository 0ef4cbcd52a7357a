import { concurrentLimit, effectiveStatus, type LiveChatOffer, rooms, type StatusUpdated } from '@parley/contracts';
import type pino from 'pino';
import type { DB } from '../../platform/db/db.js';
import { lockAccount } from '../../platform/db/locks.js';
import { appendEvent, type Listener, runCommand, type StoredEvent, type Trx } from '../../platform/outbox/index.js';
import { announceQueue, onlineAgents, openChatCounts, parseIds } from './queue.js';
import type { TokenAccount } from './settings.js';

type OfferAccount = Pick<TokenAccount, 'accountId' | 'plan' | 'departmentId' | 'offerSeconds' | 'autoOffer'>;

/**
 * Automatic offering: each queued chat without an offer goes to the ONLINE agent of the
 * chosen department with the fewest open chats, below the plan's concurrent limit, who has not skipped it
 * and holds no other offer. Ties go to the lower user id. When every agent skipped a chat, it starts over.
 * Returns the offers made.
 */
export async function offerNext(trx: Trx, account: OfferAccount, now: number): Promise<LiveChatOffer[]> {
  if (!account.autoOffer) return [];
  // Offering in one account takes turns (`lockAccount`, as queue joins do), so two commands never offer
  // one chat twice or give one agent two offers.
  await lockAccount(trx, account.accountId);
  const limit = concurrentLimit(account.plan);
  const queued = await trx
    .selectFrom('livechats')
    .select(['id', 'name', 'message', 'offered_user_id', 'skipped'])
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
    const set = await trx
      .updateTable('livechats')
      .set({ offered_user_id: agent.id, offered_at: now, skipped: JSON.stringify(skipped) })
      .where('id', '=', chat.id)
      .where('state', '=', 'queued')
      .where('offered_user_id', 'is', null)
      .executeTakeFirst();
    if (Number(set.numUpdatedRows) !== 1) continue;
    busy.add(agent.id);
    const offer: LiveChatOffer = {
      livechat_id: Number(chat.id),
      name: chat.name,
      message: chat.message.slice(0, 200),
      expires_at: now + account.offerSeconds * 1000,
    };
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
      await reoffer(trx, accountId, now, true);
    });
  }
  return expired.length;
}

/**
 * The offers a user holds move on (the user left Online or reached the limit): each such chat counts the
 * user as having skipped it. Answers how many moved.
 */
export async function withdrawOffers(trx: Trx, accountId: number, userId: number): Promise<number> {
  const held = await trx
    .selectFrom('livechats')
    .select(['id', 'skipped'])
    .where('account_id', '=', accountId)
    .where('state', '=', 'queued')
    .where('offered_user_id', '=', userId)
    .execute();
  for (const h of held)
    await trx
      .updateTable('livechats')
      .set({
        offered_user_id: null,
        offered_at: null,
        skipped: JSON.stringify([...new Set([...parseIds(h.skipped), userId])]),
      })
      .where('id', '=', h.id)
      .where('offered_user_id', '=', userId)
      .execute();
  return held.length;
}

/** Offers what waits in an account (if it offers automatically); the queue is announced when anything moved. */
export async function reoffer(trx: Trx, accountId: number, now: number, changed = false): Promise<void> {
  const account = await offerAccount(trx, accountId);
  const made = account ? await offerNext(trx, account, now) : [];
  if (changed || made.length > 0) await announceQueue(trx, accountId);
}

/**
 * An agent who comes Online (a status change, or a socket connecting) is offered what waits; one who
 * leaves Online gives up the offers it holds, and they go to the next agent. Listens to `status.updated`.
 */
export function offerOnStatus(db: DB, log: pino.Logger): Listener {
  return {
    name: 'livechat.offerOnStatus',
    kind: 'effect',
    events: ['status.updated'],
    async handle(e: StoredEvent) {
      const s = e.payload as Partial<StatusUpdated>;
      if (typeof s.userId !== 'number' || typeof s.status !== 'string') return;
      const online = effectiveStatus({ status: s.status, second_status: s.second_status ?? '' }) === 'ONLINE';
      try {
        const settings = await offerAccount(db, e.accountId);
        if (!settings?.autoOffer) return;
        await runCommand(db, async (trx) => {
          const moved = online ? 0 : await withdrawOffers(trx, e.accountId, s.userId!);
          await reoffer(trx, e.accountId, Date.now(), moved > 0);
        });
      } catch (err) {
        log.warn({ err }, 'livechat: offering after a status change failed');
      }
    },
  };
}

/** After the settings change: offering switched on offers what waits at once; switched off, offers end. */
export async function offerAfterSettings(db: DB, accountId: number): Promise<void> {
  await runCommand(db, async (trx) => {
    const account = await offerAccount(trx, accountId);
    if (account?.autoOffer) return reoffer(trx, accountId, Date.now());
    const ended = await trx
      .updateTable('livechats')
      .set({ offered_user_id: null, offered_at: null, skipped: '[]' })
      .where('account_id', '=', accountId)
      .where('state', '=', 'queued')
      .where('offered_user_id', 'is not', null)
      .executeTakeFirst();
    if (Number(ended.numUpdatedRows) > 0) await announceQueue(trx, accountId);
  });
}
