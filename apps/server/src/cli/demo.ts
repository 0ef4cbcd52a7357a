import { randomBytes } from 'node:crypto';
import { CHANNELS, type Channel, PLANS, TICKET_STATUS } from '@parley/contracts';
import { sql } from 'kysely';
import { createAccount, createUser } from '../modules/accounts/index.js';
import { backfillTicketFacts } from '../modules/reports/index.js';
import type { DB } from '../platform/db/db.js';
import { runCommand } from '../platform/outbox/index.js';

const DEPARTMENTS = ['Support', 'Sales', 'Billing'];
const LABELS: [string, string, string, number, number][] = [
  ['Urgent', '#e03131', '#ff8787', 3, 1],
  ['VIP', '#ae3ec9', '#e599f7', 2, 4],
  ['Refund', '#f08c00', '#ffc078', 1, 8],
  ['Bug', '#1971c2', '#74c0fc', 1, 24],
  ['Feedback', '#2f9e44', '#8ce99a', 0, 48],
];
const SUBJECTS = [
  'Cannot log in to my account',
  'Refund for order',
  'Where is my parcel?',
  'Invoice shows the wrong amount',
  'App crashes on start',
  'How do I change my plan?',
  'Question about pricing',
  'Delivery address change',
  'Card was charged twice',
  'Feature request: dark mode export',
];
const CUSTOMERS = [
  'Aisha Rahman',
  'Ben Carter',
  'Chen Wei',
  'Diego Alvarez',
  'Emma Novak',
  'Farid Haddad',
  'Grace Lee',
];
const LINES = [
  'Hello, I need some help with this please.',
  'Thanks for getting back to me so quickly.',
  'Could you check this again? It still does not work.',
  'I have attached the details you asked for.',
  'That fixed it, thank you!',
  'Any update on this?',
];
const REPLIES = [
  'Thanks for reaching out, let me look into it.',
  'I have checked your account and fixed the issue.',
  'Could you send me the order number?',
  'I have escalated this to our billing team.',
];

export interface DemoResult {
  accountId: number;
  users: { username: string; password: string; type: string }[];
  tickets: number;
  messages: number;
}

/** A demo workspace: an admin, 3 agents, departments, labels and `tickets` tickets with messages. */
export async function seedDemo(
  db: DB,
  opts: { tickets?: number; password?: string; prefix?: string } = {},
): Promise<DemoResult> {
  const prefix = opts.prefix ?? 'demo';
  const count = opts.tickets ?? 300;
  const password = opts.password ?? randomBytes(9).toString('base64url');
  const channels = Object.keys(CHANNELS).filter((c) => c !== 'chat') as Channel[];
  // A fixed seed keeps two demo runs alike, which makes screenshots and bug reports comparable.
  let seed = 42;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const { open, pending, resolved, closed } = TICKET_STATUS;

  const demo = await runCommand(db, async (trx) => {
    const { accountId } = await createAccount(trx, {
      name: 'Demo Company',
      accountType: 1,
      plan: PLANS.pro,
      features: ['dashboard'],
    });
    const users = [
      { username: `${prefix}-admin`, name: 'Dana Admin', type: 'admin' as const },
      { username: `${prefix}-agent1`, name: 'Alex Agent', type: 'agent' as const },
      { username: `${prefix}-agent2`, name: 'Sam Supervisor', type: 'supervisor' as const },
      { username: `${prefix}-agent3`, name: 'Kim Agent', type: 'agent' as const },
    ];
    for (const u of users) {
      await createUser(trx, { accountId, ...u, email: `${u.username}@example.com`, password });
    }
    const at = Date.now();
    const deps: number[] = [];
    for (const name of DEPARTMENTS) {
      const r = await trx
        .insertInto('departments')
        .values({ account_id: accountId, name, created_at: at })
        .returning('id')
        .executeTakeFirstOrThrow();
      deps.push(Number(r.id));
    }
    const labels: number[] = [];
    for (const [name, color, color_dark, level, sla] of LABELS) {
      const r = await trx
        .insertInto('labels')
        .values({ account_id: accountId, name, color, color_dark, level, sla, removed: 0, created_at: at })
        .returning('id')
        .executeTakeFirstOrThrow();
      labels.push(Number(r.id));
    }
    let messages = 0;
    for (let i = 1; i <= count; i++) {
      const created = at - Math.floor(rnd() * 30 * 24 * 3600 * 1000);
      const customer = pick(CUSTOMERS);
      const agent = pick(users.slice(1));
      const t = await trx
        .insertInto('tickets')
        .values({
          account_id: accountId,
          ticket_number: i,
          title: `${pick(SUBJECTS)} #${i}`,
          channel: pick(channels),
          closed: pick([open, open, open, pending, resolved, closed]),
          priority: pick(['H', 'M', 'L', '']),
          label: JSON.stringify(rnd() < 0.6 ? [pick(labels)] : []),
          department_id: pick(deps),
          assignee: rnd() < 0.7 ? agent.username : '',
          name: customer,
          email: `${customer.split(' ')[0]?.toLowerCase()}@example.net`,
          phone: '',
          created_at: created,
          updated_at: created,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const n = 2 + Math.floor(rnd() * 5);
      const rows = Array.from({ length: n }, (_, k) => ({
        account_id: accountId,
        ticket_id: Number(t.id),
        type: 'text',
        message: k % 2 === 0 ? pick(LINES) : pick(REPLIES),
        sender: k % 2 === 0 ? 'visitor' : agent.username,
        // Who said it, as a real send stores it: the customer's name, or the agent's display name.
        sender_name: k % 2 === 0 ? customer : agent.name,
        client_id: null,
        created_at: created + k * 600_000,
      }));
      await trx.insertInto('messages').values(rows).execute();
      await trx
        .updateTable('tickets')
        .set({
          updated_at: sql`${created + (n - 1) * 600_000}`,
          // Messages alternate visitor, agent, ...: the last visitor message is the last even one.
          last_message_at: created + (n - 1 - ((n - 1) % 2)) * 600_000,
          has_responded: 1,
        })
        .where('id', '=', Number(t.id))
        .execute();
      messages += n;
    }
    return {
      accountId,
      users: users.map((u) => ({ username: u.username, password, type: u.type })),
      tickets: count,
      messages,
    };
  });
  // The demo's tickets are written directly (no events): the reports' facts are built from them.
  await backfillTicketFacts(db, { accountId: demo.accountId });
  return demo;
}
