import os from 'node:os';
import { createParley } from '../apps/server/src/app.js';
import { createSession } from '../apps/server/src/platform/auth/sessions.js';
import { loadConfig } from '../apps/server/src/platform/config.js';
import { loadTickets } from '../apps/server/src/modules/tickets/tickets.queries.js';
import { TicketLoadQuery, TicketLoadAnswer } from '@parley/contracts';
const p = await createParley(loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', DATA_DIR: os.tmpdir(), DATABASE_URL: 'postgres://root@127.0.0.1:5432/parley_keep_1m' }), { background: false });
const url = `http://127.0.0.1:${await p.listen()}`;
const { token } = await createSession(p.handle.db, { accountId: 1, userId: 1 });
const h = { authorization: `Bearer ${token}` };
async function m(label: string, f: () => Promise<unknown>) {
  for (let i = 0; i < 200; i++) await f();
  const t = new Float64Array(2000);
  for (let i = 0; i < 2000; i++) { const t0 = performance.now(); await f(); t[i] = performance.now() - t0; }
  t.sort(); console.log(label.padEnd(24), 'p50', t[1000]!.toFixed(3), 'p99', t[1980]!.toFixed(3));
}
const page = { status: 0, type: 'ticket' as const, offset: 0, limit: 30, query: TicketLoadQuery.parse({}) };
let ans: unknown;
await m('loadTickets direct', async () => { ans = await loadTickets(p.handle.db, { accountId: 1, userId: 1 }, page); });
await m('zod parse + stringify', async () => JSON.stringify(TicketLoadAnswer.parse(ans)));
await m('fetch /healthz', async () => (await fetch(`${url}/healthz`)).arrayBuffer());
await m('inject /ticket/load', async () => p.app.inject({ url: '/ticket/load/me/0/ticket/0', headers: h }));
await m('fetch /ticket/load', async () => (await fetch(`${url}/ticket/load/me/0/ticket/0`, { headers: h })).arrayBuffer());
await p.close();
