import { SCAM_CALL_PAGE_SIZE, SCAM_CALL_STRINGS, ScamCallsAnswer } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { readCallScam } from './scamCalls.js';

const line = (source: 'agent' | 'customer' | 'others', transcription: string, interim = false) => ({
  source,
  transcription,
  translated_transcription: '',
  interim,
});

describe('Scam Calls: the reading of a call', () => {
  it('CALL-46 reads the caller, never the agent, and names the line that made it', () => {
    const r = readCallScam([
      line('agent', 'Good morning, you are through to accounts.'),
      line('customer', 'Hi, this is your supplier.'),
      line('customer', 'Our bank details have changed, please send the payment to our new account today.'),
    ]);
    expect(r?.kind).toBe('payment_redirection');
    expect(r?.cues.length).toBeGreaterThan(0);
    expect(r?.excerpt).toContain('bank details have changed');
    // The agent's warning is not the caller's ask.
    expect(readCallScam([line('agent', 'Please tell me your PIN and the one-time code right now.')])).toBeNull();
    // An interim guess is not what was said.
    expect(readCallScam([line('customer', 'Read me the one-time code we just sent you.', true)])).toBeNull();
    // An ordinary call is not flagged.
    expect(readCallScam([line('customer', 'I would like to change my delivery address, please.')])).toBeNull();
    // A translated line is read in its translation.
    const t = readCallScam([
      {
        source: 'others',
        transcription: 'Sie haben gewonnen',
        translated_transcription: 'Congratulations, you have won a prize! Pay the release fee to claim it.',
        interim: false,
      },
    ]);
    expect(t?.kind).toBeTruthy();
    expect(t?.excerpt).toContain('you have won');
    // Nothing said, nothing read.
    expect(readCallScam([])).toBeNull();
    expect(readCallScam([line('customer', '   ')])).toBeNull();
  });
});

describe.each(dialects)('Scam Calls feed, GET /api/call_verification (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
  });
  afterAll(async () => s?.stop());

  const withScamCalls = (accountId: number) =>
    s.handle.db.updateTable('accounts').set({ features: '["scam_calls"]' }).where('id', '=', accountId).execute();
  const feed = (token: string, query = '') =>
    call('GET', `/api/call_verification${query ? `?${query}` : ''}`, { token });
  const endedCall = async (token: string, number: string, transcript: ReturnType<typeof line>[]) => {
    const callId = `pbx-${uniq()}`;
    const st = await call('POST', '/api/call/start', {
      token,
      body: { call_id: callId, direction: 'inbound', number },
    });
    expect(st.status, st.text).toBe(200);
    const en = await call('POST', '/api/call/end', { token, body: { call_id: callId, duration: 42, transcript } });
    expect(en.status, en.text).toBe(200);
    return { callId, ticketId: st.body.data.ticket_id as number };
  };

  it('CALL-45 CALL-46 NAV-24 flagged calls, newest first, with their words and the numbers they came from; admins of accounts with the feature only', async () => {
    const a = await signUpVia(call);
    const agent = await addUserVia(call, a.token, { username: `agent-${uniq()}`, type: 'agent' });

    // Without the feature: a clear 403, even for the admin.
    const off = await feed(a.token);
    expect(off.status).toBe(403);
    expect(off.body.description).toBe(SCAM_CALL_STRINGS.notAllowed);
    await withScamCalls(a.accountId);
    expect((await feed(agent.token)).status).toBe(403);

    const empty = ScamCallsAnswer.parse((await feed(a.token)).body);
    expect(empty).toEqual({ result: 'success', data: [], numbers: [], total: 0 });

    const fraud = '+44 7700 900123';
    const first = await endedCall(agent.token, fraud, [
      line('agent', 'Hello, accounts payable.'),
      line('customer', 'We have updated our bank details, please pay the invoice into our new account.'),
    ]);
    await endedCall(agent.token, '+44 7700 900999', [
      line('customer', 'Hi, I want to know when my parcel arrives.'),
      line('agent', 'Tomorrow before noon.'),
    ]);
    const second = await endedCall(agent.token, fraud, [
      line('customer', 'This is the fraud team, read me the one-time code we just sent you immediately.'),
    ]);
    // Agent-only transcripts never flag.
    await endedCall(agent.token, '+1 555 0100', [line('agent', 'We will never ask you for your password or PIN.')]);

    const got = ScamCallsAnswer.parse((await feed(a.token)).body);
    expect(got.total).toBe(2);
    expect(got.data.map((d) => d.ticket_id)).toEqual([second.ticketId, first.ticketId]);
    const [newest, oldest] = got.data;
    expect(newest).toMatchObject({ number: fraud, direction: 'inbound', assignee: agent.username, number_flags: 2 });
    expect(['urgency_pressure', 'credential_request']).toContain(newest!.kind);
    expect(newest!.confidence).toBeGreaterThan(0.5);
    expect(newest!.excerpt).toContain('one-time code');
    expect(oldest).toMatchObject({ kind: 'payment_redirection', duration: 42 });
    expect(oldest!.cues.length).toBeGreaterThan(0);
    expect(got.numbers).toEqual([{ number: fraud, calls: 2, last_at: newest!.flagged_at }]);

    // Filters: a kind, a number.
    const byKind = ScamCallsAnswer.parse((await feed(a.token, 'kind=payment_redirection')).body);
    expect(byKind.data.map((d) => d.ticket_id)).toEqual([first.ticketId]);
    const byNumber = ScamCallsAnswer.parse((await feed(a.token, `number=${encodeURIComponent('+1 555 0100')}`)).body);
    expect(byNumber.total).toBe(0);

    // The transcript sent again without the scam takes the call off the feed.
    const again = await call('POST', '/api/call/end', {
      token: agent.token,
      body: { call_id: first.callId, transcript: [line('customer', 'Sorry, wrong number.')] },
    });
    expect(again.status, again.text).toBe(200);
    const after = ScamCallsAnswer.parse((await feed(a.token)).body);
    expect(after.data.map((d) => d.ticket_id)).toEqual([second.ticketId]);
    expect(after.data[0]!.number_flags).toBe(1);

    // A transcript removed (a retention rule): the call stays flagged, its words are gone.
    await s.handle.db.deleteFrom('call_transcripts').where('ticket_id', '=', second.ticketId).execute();
    const gone = ScamCallsAnswer.parse((await feed(a.token)).body).data[0]!;
    expect(gone).toMatchObject({ ticket_id: second.ticketId, cues: [], excerpt: '' });
  });

  it('CALL-46 pages of 30, and another account sees none of them', async () => {
    const a = await signUpVia(call);
    const b = await signUpVia(call);
    await withScamCalls(a.accountId);
    await withScamCalls(b.accountId);
    for (let i = 0; i < SCAM_CALL_PAGE_SIZE + 2; i++)
      await endedCall(a.token, `+1 555 01${String(i).padStart(2, '0')}`, [
        line('customer', 'Congratulations, you have won a lottery prize, pay the release fee to claim it.'),
      ]);
    const p1 = ScamCallsAnswer.parse((await feed(a.token)).body);
    expect(p1.total).toBe(SCAM_CALL_PAGE_SIZE + 2);
    expect(p1.data).toHaveLength(SCAM_CALL_PAGE_SIZE);
    expect(p1.numbers).toHaveLength(10);
    const p2 = ScamCallsAnswer.parse((await feed(a.token, `offset=${SCAM_CALL_PAGE_SIZE}`)).body);
    expect(p2.data).toHaveLength(2);
    expect(p2.numbers).toEqual([]);
    expect(new Set([...p1.data, ...p2.data].map((d) => d.ticket_id)).size).toBe(SCAM_CALL_PAGE_SIZE + 2);
    expect(ScamCallsAnswer.parse((await feed(b.token)).body).total).toBe(0);
  });

  it('CALL-46 bad input is a 400 that names the field', async () => {
    const a = await signUpVia(call);
    await withScamCalls(a.accountId);
    for (const q of ['kind=phishing', 'offset=-1', 'offset=abc', `number=${'9'.repeat(51)}`]) {
      const r = await feed(a.token, q);
      expect(r.status, q).toBe(400);
    }
    expect((await feed(a.token, 'kind=')).status).toBe(200);
  });
});
