import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { type DbHandle, openDatabase } from '../../platform/db/db.js';
import { apiClient, signUpVia } from '../../testing/api.js';
import { waText, whatsappWebhook } from '../../testing/channelStandIns.js';
import { crashNode, startNode, stopAllNodes } from '../../testing/nodes.js';
import { tempDir } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';

const PHONE_ID = '106540352242922';
const APP_SECRET = 'kill-app-secret';
const TOTAL = 1000;
const PEERS = 50;

/**
 * Crash safety of the webhook path: the server, a real OS process on SQLite, is killed with SIGKILL in the
 * middle of a burst of 1,000 signed WhatsApp webhooks. Every webhook it acknowledged (200) must become
 * exactly one message once it is started again; the provider then delivers the rest again (as it does for
 * any webhook without a 200), and the account ends with exactly 1,000 messages, none twice.
 */
describe('channel webhooks through a SIGKILL', () => {
  let handle: DbHandle | undefined;
  const dataDir = tempDir('parley-webhook-kill-');
  afterAll(async () => {
    await stopAllNodes();
    await handle?.db.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('WHATSAPP 1,000 webhooks across a SIGKILL: every acknowledged one is one message; redelivered, exactly 1,000', async () => {
    const env = { SECRETS_KEY: randomBytes(32).toString('base64'), PUBLIC_URL: 'https://parley.example' };
    let node = await startNode('webhook-kill', env, { dataDir });
    const call = apiClient(node.url);
    const admin = await signUpVia(call);
    const made = await call('POST', '/api/channels', {
      token: admin.token,
      body: {
        name: 'Kill',
        settings: { kind: 'whatsapp', phoneNumberId: PHONE_ID, accessToken: 'token', appSecret: APP_SECRET },
      },
    });
    expect(made.status, made.text).toBe(200);
    const path = new URL(made.body.data.webhookUrl).pathname;
    const hooks = Array.from({ length: TOTAL }, (_, i) => {
      const peer = `1650555${String(1000 + (i % PEERS))}`;
      return {
        id: `wamid.kill-${i}`,
        ...whatsappWebhook(APP_SECRET, waText(peer, `P${i % PEERS}`, `m${i}`, `wamid.kill-${i}`), PHONE_ID),
      };
    });
    const deliver = async (base: string, h: (typeof hooks)[number]) => {
      try {
        const r = await fetch(`${base}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-hub-signature-256': h.signature },
          body: h.body,
        });
        return r.status === 200;
      } catch {
        return false;
      }
    };

    handle = openDatabase({ dataDir });
    const db = handle.db;
    const stored = async () =>
      db
        .selectFrom('channel_message_ids')
        .select(['provider_id', 'message_row_id'])
        .where('account_id', '=', admin.accountId)
        .where('direction', '=', 'in')
        .execute();

    // Twenty at a time, as a provider's senders would; the node is killed once 300 are acknowledged.
    const acked = new Set<string>();
    let next = 0;
    let killed = false;
    const base = node.url;
    const sender = async () => {
      while (next < TOTAL) {
        const h = hooks[next++]!;
        if (await deliver(base, h)) acked.add(h.id);
        if (!killed && acked.size >= 300) {
          killed = true;
          await crashNode(node);
        }
      }
    };
    await Promise.all(Array.from({ length: 20 }, sender));
    expect(killed).toBe(true);
    const ackedAtKill = acked.size;
    expect(ackedAtKill).toBeLessThan(TOTAL);

    node = await startNode('webhook-kill', env, { port: node.port, dataDir });
    let rows: Awaited<ReturnType<typeof stored>> = [];
    await waitFor(
      async () => {
        rows = await stored();
        const ids = new Set(rows.map((r) => r.provider_id));
        return [...acked].every((id) => ids.has(id));
      },
      () => `every acknowledged webhook stored (${rows.length} stored, ${acked.size} acknowledged)`,
      60_000,
      50,
    );

    // The provider delivers again what it got no 200 for (and some it did: a repeat is harmless).
    const redeliver = hooks.filter((h) => !acked.has(h.id) || Number(h.id.slice(11)) % 10 === 0);
    for (let i = 0; i < redeliver.length; i += 20)
      await Promise.all(redeliver.slice(i, i + 20).map((h) => deliver(node.url, h)));
    await waitFor(
      async () => {
        rows = await stored();
        return rows.length >= TOTAL;
      },
      () => `all ${TOTAL} stored (${rows.length})`,
      60_000,
      50,
    );
    expect(new Set(rows.map((r) => r.provider_id)).size).toBe(TOTAL);
    const messages = await db
      .selectFrom('messages')
      .select(['id', 'message'])
      .where('account_id', '=', admin.accountId)
      .where('sender', '=', 'visitor')
      .execute();
    expect(messages).toHaveLength(TOTAL);
    expect(new Set(messages.map((m) => m.message)).size).toBe(TOTAL);
    const tickets = await db
      .selectFrom('tickets')
      .select('id')
      .where('account_id', '=', admin.accountId)
      .where('channel', '=', 'WHATSAPP')
      .execute();
    expect(tickets).toHaveLength(PEERS);
  }, 240_000);
});
