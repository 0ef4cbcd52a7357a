import { ACCOUNT_TYPES, PLANS } from '@parley/contracts';
import type { Trx } from '../../../platform/outbox/index.js';
import { appendEvent } from '../../../platform/outbox/index.js';

export interface CreateAccountInput {
  name: string;
  accountType?: number;
  plan?: number;
  features?: string[];
}

/** Creates an account. Emits `account.created`. */
export async function createAccount(trx: Trx, input: CreateAccountInput): Promise<{ accountId: number }> {
  const at = Date.now();
  const row = await trx
    .insertInto('accounts')
    .values({
      name: input.name,
      account_type: input.accountType ?? ACCOUNT_TYPES.regular,
      plan: input.plan ?? PLANS.starter,
      features: JSON.stringify(input.features ?? []),
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const accountId = Number(row.id);
  await appendEvent(trx, { accountId, type: 'account.created', payload: { accountId, name: input.name } });
  return { accountId };
}
