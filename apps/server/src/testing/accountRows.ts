import type { Insertable } from 'kysely';
import type { DB } from '../platform/db/db.js';
import type { LabelsTable, TicketsTable } from '../platform/db/schema.js';
import { addUserVia, type Call, type SignedUp, signUpVia, uniq } from './api.js';

export type TicketRow = Partial<Insertable<TicketsTable>>;
type Agent = Awaited<ReturnType<typeof addUserVia>>;

/**
 * The usual shape of a ticket test: an account with agents, and a second account to show that nothing
 * crosses over. Each agent is `{ as, name }`: its username is `as` and a unique suffix.
 */
export async function twoAccounts<const T extends readonly { as: string; name?: string }[]>(
  call: Call,
  ...agents: T
): Promise<{ a: SignedUp; b: SignedUp; agents: { [K in keyof T]: Agent } }> {
  const a = await signUpVia(call);
  const b = await signUpVia(call);
  const made: Agent[] = [];
  for (const { as, name } of agents)
    made.push(
      await addUserVia(call, a.token, { username: `${as}-${uniq()}`, type: 'agent', ...(name ? { name } : {}) }),
    );
  return { a, b, agents: made as { [K in keyof T]: Agent } };
}

/**
 * Rows of an account written straight into its tables, for tests that start from a given state: tickets
 * numbered 1, 2, 3... in the order made (`T 1` from `Customer` by e-mail, open, no one assigned, unless
 * `ticketDefaults` or the call says otherwise), labels and departments.
 */
export function accountRows(db: () => DB, ticketDefaults: (n: number) => TicketRow = () => ({})) {
  let numbers = 0;
  const insertedId = (r: { id: number | bigint }) => Number(r.id);
  return {
    /** The number of the last ticket made. */
    lastNumber: () => numbers,

    async ticket(accountId: number, over: TicketRow = {}): Promise<number> {
      const n = ++numbers;
      return insertedId(
        await db()
          .insertInto('tickets')
          .values({
            account_id: accountId,
            ticket_number: n,
            title: `T ${n}`,
            channel: 'EMAIL',
            closed: 0,
            priority: '',
            label: '[]',
            department_id: null,
            assignee: '',
            name: 'Customer',
            email: 'c@example.net',
            phone: '',
            created_at: 1_000,
            updated_at: 1_000,
            ...ticketDefaults(n),
            ...over,
          })
          .returning('id')
          .executeTakeFirstOrThrow(),
      );
    },

    async label(accountId: number, name = `L-${uniq()}`, removed = 0, over: Partial<Insertable<LabelsTable>> = {}) {
      return insertedId(
        await db()
          .insertInto('labels')
          .values({
            account_id: accountId,
            name,
            color: '#000000',
            color_dark: '#FFFFFF',
            level: 0,
            sla: 30,
            removed,
            created_at: Date.now(),
            ...over,
          })
          .returning('id')
          .executeTakeFirstOrThrow(),
      );
    },

    async department(accountId: number, name = `D-${uniq()}`): Promise<number> {
      return insertedId(
        await db()
          .insertInto('departments')
          .values({ account_id: accountId, name, created_at: Date.now() })
          .returning('id')
          .executeTakeFirstOrThrow(),
      );
    },
  };
}
