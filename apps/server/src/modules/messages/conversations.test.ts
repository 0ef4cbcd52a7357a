import { CHANNEL_CODES, MESSAGE_STRINGS, rooms } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationRules } from '../../app.js';
import { runCommand } from '../../platform/outbox/index.js';
import { apiClient, type Call, signUpVia } from '../../testing/api.js';
import { insertTicket } from '../../testing/messages.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { Conversations, staffConversations } from './messages.realtime.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe.each(dialects)('conversation rules (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  const db = () => s.handle.db;

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('MSG-47 a channel without a rule is read by nobody and heard by nobody', async () => {
    const admin = await signUpVia(call);
    const ticket = { id: await insertTicket(db(), admin.accountId, { channel: 'FAX' }), accountId: admin.accountId };
    const rules = conversationRules();
    expect(await rules.canRead(db(), { ...ticket, channel: 'FAX' }, admin.userId)).toBe(false);
    expect(await runCommand(db(), (trx) => rules.messageAudience(trx, { ...ticket, channel: 'FAX' }))).toEqual([]);
    // The same ticket on a staff channel is the account's.
    expect(await rules.canRead(db(), { ...ticket, channel: 'EMAIL' }, admin.userId)).toBe(true);
    // Through the API: its history is refused, as a conversation the caller may not read.
    const r = await call('GET', `/ticket/data/${ticket.id}/0`, { token: admin.token });
    expect(r.status).toBe(403);
    expect(r.body.description).toBe(MESSAGE_STRINGS.cannotRead);
  });

  it('MSG-47 every channel code has a rule; an instance without a module rule denies that channel', async () => {
    const admin = await signUpVia(call);
    const rules = conversationRules();
    const t = { id: 1, accountId: admin.accountId };
    expect(CHANNEL_CODES.filter((code) => !rules.covers(code))).toEqual([]);
    expect(rules.covers('FAX')).toBe(false);
    const staffOnly = new Conversations(staffConversations());
    expect(await staffOnly.canRead(db(), { ...t, channel: 'LIVECHAT' }, admin.userId)).toBe(false);
    expect(await staffOnly.canRead(db(), { ...t, channel: 'chat' }, admin.userId)).toBe(false);
    expect(await staffOnly.canRead(db(), { ...t, channel: 'MANUAL' }, admin.userId)).toBe(true);
    expect(await runCommand(db(), (trx) => staffOnly.messageAudience(trx, { ...t, channel: 'SMS' }))).toEqual([
      rooms.account(admin.accountId),
    ]);
  });
});
