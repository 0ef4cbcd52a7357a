import {
  AuthCheckAnswer,
  CALL_FILTER_STRINGS,
  CALL_STRINGS,
  CallAnswer,
  CallConfigAnswer,
  CallDetailAnswer,
  RecordingsAnswer,
  TICKET_STRINGS,
  TicketLoadAnswer,
} from '@parley/contracts';
import { speechWav } from '@parley/contracts/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { byteRange } from './recordings.routes.js';

const shout = speechWav([
  { gain: 0.8, bursts: 5 },
  { gain: 0.8, bursts: 5 },
  { gain: 0.8, bursts: 5 },
]);

describe.each(dialects)('CALL calls as CALL tickets, recordings (%s)', (dialect) => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    call = apiClient(server.url);
  });
  afterAll(async () => server?.stop());

  const upload = async (token: string, b: Buffer, type: string, name: string): Promise<string> => {
    const form = new FormData();
    form.append('attachment[]', new Blob([new Uint8Array(b)], { type }), name);
    const res = await fetch(`${server.url}/api/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    const body = (await res.json()) as { file: string[] };
    expect(res.status, JSON.stringify(body)).toBe(200);
    return body.file[0]!;
  };
  const start = (token: string, body: Record<string, unknown>) => call('POST', '/api/call/start', { token, body });
  const end = (token: string, body: Record<string, unknown>) => call('POST', '/api/call/end', { token, body });
  const load = async (token: string, query = '') => {
    const r = await call('GET', `/api/ticket/load/me/all/call2/0${query ? `?${query}` : ''}`, { token });
    expect(r.status, r.text).toBe(200);
    return TicketLoadAnswer.parse(r.body);
  };

  it('CALL-01 CALL-15 CALL-29 CALL-32 a call becomes a CALL ticket with its direction, number, DID, assignee, duration, recording and transcript', async () => {
    const a = await signUpVia(call);
    const agent = await addUserVia(call, a.token, { username: `agent-${uniq()}`, type: 'agent' });
    const callId = `pbx-${uniq()}`;
    const s = await start(agent.token, {
      call_id: callId,
      direction: 'inbound',
      number: '+60123456789',
      did: '1300-88',
    });
    expect(s.status, s.text).toBe(200);
    const started = CallAnswer.parse(s.body).data;
    expect(started).toMatchObject({
      call_id: callId,
      direction: 'inbound',
      number: '+60123456789',
      did: '1300-88',
      assignee: agent.username,
      ended_at: null,
      has_recording: false,
      recording: null,
    });
    // The same call reported again is the same ticket.
    const again = CallAnswer.parse(
      (await start(agent.token, { call_id: callId, direction: 'inbound', number: 'x' })).body,
    );
    expect(again.data.ticket_id).toBe(started.ticket_id);
    const list = await load(a.token);
    expect(list.count).toBe(1);
    expect(list.data[0]).toMatchObject({
      id: started.ticket_id,
      channel: 'CALL',
      call_direction: 'inbound',
      did: '1300-88',
      phone: '+60123456789',
      title: 'Call from +60123456789',
    });

    const recording = await upload(agent.token, shout, 'audio/wav', 'call.wav');
    const transcript = [
      { source: 'customer', transcription: 'My TV is broken', emotion: 'angry', energy: 75, pace: 50 },
      { source: 'agent', transcription: 'Sorry to hear that', translated_transcription: 'Maaf', interim: false },
    ];
    const e = await end(agent.token, { call_id: callId, duration: 95, recording, transcript });
    expect(e.status, e.text).toBe(200);
    const ended = CallAnswer.parse(e.body).data;
    // An agent sees that a recording exists, not where it streams from (REC-01).
    expect(ended).toMatchObject({ duration: 95, has_recording: true, recording: null, emotion: 'angry' });
    expect(ended.energy).not.toBeNull();
    expect(ended.emotion_2).toEqual({ angry: 100 });

    const detail = await call('GET', `/api/call/${started.ticket_id}`, { token: a.token });
    expect(detail.status, detail.text).toBe(200);
    const d = CallDetailAnswer.parse(detail.body).data;
    expect(d.call.recording).toBe(`/api/recordings/${started.ticket_id}/audio`);
    expect(d.transcript.map((t) => [t.source, t.transcription, t.translated_transcription, t.emotion])).toEqual([
      ['customer', 'My TV is broken', '', 'angry'],
      ['agent', 'Sorry to hear that', 'Maaf', ''],
    ]);
    expect(d.transcript[0]).toMatchObject({ energy: 75, pace: 50, interim: false, personality: '', data_id: '' });
    // An end sent twice keeps one transcript.
    await end(agent.token, { call_id: callId, duration: 95, transcript });
    const d2 = CallDetailAnswer.parse((await call('GET', `/api/call/${started.ticket_id}`, { token: a.token })).body);
    expect(d2.data.transcript).toHaveLength(2);
    expect(d2.data.call.has_recording).toBe(true);

    // Another account sees none of it and cannot end it.
    const b = await signUpVia(call);
    expect((await call('GET', `/api/call/${started.ticket_id}`, { token: b.token })).status).toBe(404);
    const foreign = await end(b.token, { call_id: callId, duration: 1 });
    expect([foreign.status, foreign.body.description]).toEqual([404, CALL_STRINGS.notFound]);
    expect((await load(b.token)).count).toBe(0);
    // B may use the same call id for its own call: its own ticket.
    const bs = CallAnswer.parse((await start(b.token, { call_id: callId, direction: 'outbound', number: '1' })).body);
    expect(bs.data.ticket_id).not.toBe(started.ticket_id);
    expect(bs.data.assignee).toBe(b.username);
  });

  it('CALL-30 REC-10 the call list filters: emotion, energy, pace, personality, direction, assignee, number, DID and date', async () => {
    const a = await signUpVia(call);
    const agent = await addUserVia(call, a.token, { username: `agent-${uniq()}`, type: 'agent' });
    const mk = async (token: string, direction: string, number: string, did: string) =>
      CallAnswer.parse((await start(token, { call_id: `c-${uniq()}`, direction, number, did })).body).data;
    const one = await mk(agent.token, 'inbound', '+601111', 'D1');
    const two = await mk(a.token, 'outbound', '+602222', 'D2');
    const recording = await upload(agent.token, shout, 'audio/wav', 'call.wav');
    const ended = CallAnswer.parse((await end(agent.token, { call_id: one.call_id, recording })).body).data;
    // A non-call ticket never shows in the call list.
    expect((await call('POST', '/api/ticket/create', { token: a.token, body: { title: 'Not a call' } })).status).toBe(
      200,
    );

    const ids = async (q: string) => (await load(a.token, q)).data.map((t) => t.id).sort();
    expect(await ids('')).toEqual([one.ticket_id, two.ticket_id].sort());
    expect(await ids('direction=inbound')).toEqual([one.ticket_id]);
    expect(await ids('direction=outbound')).toEqual([two.ticket_id]);
    expect(await ids(`assignee=${agent.username}`)).toEqual([one.ticket_id]);
    expect(await ids('number=2222')).toEqual([two.ticket_id]);
    expect(await ids('DID=D1')).toEqual([one.ticket_id]);
    expect(await ids('DID=D')).toEqual([]);
    expect(await ids('emotion=angry,sad')).toEqual([one.ticket_id]);
    expect(await ids('emotion=happy')).toEqual([]);
    expect(await ids(`energy=${ended.energy}`)).toEqual([one.ticket_id]);
    expect(await ids(`pace=${ended.pace}&energy=${ended.energy}`)).toEqual([one.ticket_id]);
    expect(await ids('personality=driver')).toEqual([]);
    const today = new Date(one.started_at).toISOString().slice(0, 10);
    expect(await ids(`date=${today}`)).toEqual([one.ticket_id, two.ticket_id].sort());
    expect(await ids('date=2001-01-01')).toEqual([]);
    // Bad values are a 400 naming the fault.
    const bad = await call('GET', '/api/ticket/load/me/all/call2/0?date=1/2/2026', { token: a.token });
    expect([bad.status, bad.body.description]).toEqual([400, CALL_FILTER_STRINGS.badDate]);
    const step = await call('GET', '/api/ticket/load/me/all/call2/0?energy=33', { token: a.token });
    expect([step.status, step.body.description]).toEqual([400, CALL_FILTER_STRINGS.badStep]);
    expect((await call('GET', '/api/ticket/load/me/all/call2/0?direction=up', { token: a.token })).status).toBe(400);
  });

  it('REC-01 REC-06 REC-07 REC-12 recordings: supervisors and admins, filtered by type, emotion, date and department, 30 a page', async () => {
    const a = await signUpVia(call);
    const agent = await addUserVia(call, a.token, { username: `agent-${uniq()}`, type: 'agent' });
    const sup = await addUserVia(call, a.token, { username: `sup-${uniq()}`, type: 'supervisor' });
    const recording = await upload(agent.token, shout, 'audio/wav', 'call.wav');
    const made: number[] = [];
    for (let i = 0; i < 31; i++) {
      const c = CallAnswer.parse(
        (
          await start(agent.token, {
            call_id: `r-${i}-${uniq()}`,
            direction: i === 0 ? 'outbound' : 'inbound',
            number: `${i}`,
          })
        ).body,
      ).data;
      expect((await end(agent.token, { call_id: c.call_id, duration: i, recording })).status).toBe(200);
      made.push(c.ticket_id);
    }
    // A call without a recording is not a recording.
    await start(agent.token, { call_id: `none-${uniq()}`, direction: 'inbound', number: '9' });

    const rec = async (token: string, q = '') => call('GET', `/api/recordings${q ? `?${q}` : ''}`, { token });
    const first = RecordingsAnswer.parse((await rec(sup.token)).body);
    expect(first.count).toBe(31);
    expect(first.data).toHaveLength(30);
    expect(first.data[0]!.recording).toBe(`/api/recordings/${first.data[0]!.ticket_id}/audio`);
    const rest = RecordingsAnswer.parse((await rec(a.token, 'offset=30')).body);
    expect(rest.data).toHaveLength(1);
    expect(new Set([...first.data, ...rest.data].map((r) => r.ticket_id))).toEqual(new Set(made));
    expect(RecordingsAnswer.parse((await rec(a.token, 'type=outbound')).body).data.map((r) => r.ticket_id)).toEqual([
      made[0],
    ]);
    expect(RecordingsAnswer.parse((await rec(a.token, 'emotionFilter=angry')).body).count).toBe(31);
    expect(RecordingsAnswer.parse((await rec(a.token, 'emotionFilter=calm,sad')).body).count).toBe(0);
    expect(RecordingsAnswer.parse((await rec(a.token, 'start=0&end=1')).body).count).toBe(0);

    const dep = await call('POST', '/api/departments', { token: a.token, body: { name: `Sales ${uniq()}` } });
    expect(dep.status, dep.text).toBe(200);
    const depId = Number(dep.body.data?.id ?? dep.body.id);
    expect(RecordingsAnswer.parse((await rec(a.token, `depFilter=${depId}`)).body).count).toBe(0);

    // REC-01: agents may not; bad filters are a 400; another account's department is refused.
    const refused = await rec(agent.token);
    expect([refused.status, refused.body.description]).toEqual([403, CALL_STRINGS.recordingsNotAllowed]);
    expect((await rec(a.token, 'emotionFilter=furious')).status).toBe(400);
    expect((await rec(a.token, 'type=video')).status).toBe(400);
    const b = await signUpVia(call);
    const bDep = await call('POST', '/api/departments', { token: b.token, body: { name: `B ${uniq()}` } });
    const bDepId = Number(bDep.body.data?.id ?? bDep.body.id);
    const foreign = await rec(a.token, `depFilter=${bDepId}`);
    expect([foreign.status, foreign.body.description]).toEqual([400, TICKET_STRINGS.badDepartment]);
    expect(RecordingsAnswer.parse((await rec(b.token)).body).count).toBe(0);

    // The audio streams whole or by range, to supervisors and admins of the account only.
    const url = `${server.url}/api/recordings/${made[0]}/audio`;
    const whole = await fetch(url, { headers: { authorization: `Bearer ${sup.token}` } });
    expect(whole.status).toBe(200);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(Buffer.from(await whole.arrayBuffer()).equals(shout)).toBe(true);
    const part = await fetch(url, { headers: { authorization: `Bearer ${a.token}`, range: 'bytes=4-11' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 4-11/${shout.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(shout.subarray(4, 12))).toBe(true);
    const past = await fetch(url, { headers: { authorization: `Bearer ${a.token}`, range: `bytes=${shout.length}-` } });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${shout.length}`);
    expect((await fetch(url, { headers: { authorization: `Bearer ${agent.token}` } })).status).toBe(403);
    expect((await fetch(url, { headers: { authorization: `Bearer ${b.token}` } })).status).toBe(404);
  });

  it('REC-07 byte ranges read as players send them', () => {
    expect(byteRange(undefined, 100)).toBeNull();
    expect(byteRange('bytes=0-', 100)).toEqual({ start: 0, end: 99 });
    expect(byteRange('bytes=10-20', 100)).toEqual({ start: 10, end: 20 });
    expect(byteRange('bytes=90-500', 100)).toEqual({ start: 90, end: 99 });
    expect(byteRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
    expect(byteRange('bytes=0-1,5-6', 100)).toBeNull();
    for (const bad of ['bytes=100-', 'bytes=20-10', 'bytes=-0', 'bytes=-', 'items=0-1'])
      expect(byteRange(bad, 100)).toBe('bad');
  });

  it('CALL-06 CALL-35 CALL-36 CALL-38 CALL-40 extensions, the SIP line, what a DID is, the after-call wrap-up', async () => {
    const a = await signUpVia(call);
    const agent = await addUserVia(call, a.token, { username: `agent-${uniq()}`, type: 'agent' });
    const db = server.handle.db;
    await db
      .updateTable('users')
      .set({ sip_active: 1, sip_number: '1001', sip_password: 'line secret' })
      .where('id', '=', agent.id)
      .execute();
    const ext = await call('GET', '/api/extension/get', { token: a.token });
    expect(ext.status, ext.text).toBe(200);
    expect(ext.body.data).toEqual([
      { id: agent.id, username: agent.username, name: agent.username, extension: '1001' },
    ]);
    const b = await signUpVia(call);
    expect((await call('GET', '/api/extension/get', { token: b.token })).body.data).toEqual([]);

    const sip = await call('GET', '/api/sip/refresh', { token: agent.token });
    expect(sip.status, sip.text).toBe(200);
    expect(sip.body.sip).toEqual({ active: 1, sip_number: '1001', password: 'line secret' });

    // CALL-35, CALL-36: unknown until an admin describes it; the failure is a 404 the web turns into the alert.
    const unknown = await call('GET', '/api/proxy/imc_user?did=1300-88', { token: agent.token });
    expect([unknown.status, unknown.body.description]).toEqual([404, CALL_STRINGS.unknownDid]);
    expect(
      (await call('POST', '/api/call/did', { token: agent.token, body: { did: '1300-88', description: 'x' } })).status,
    ).toBe(403);
    const set = await call('POST', '/api/call/did', {
      token: a.token,
      body: { did: '1300-88', description: 'Acme Malaysia hotline' },
    });
    expect(set.status, set.text).toBe(200);
    const known = await call('GET', '/api/proxy/imc_user?did=1300-88', { token: agent.token });
    expect(known.body.data).toEqual({ did: '1300-88', description: 'Acme Malaysia hotline' });
    expect((await call('GET', '/api/proxy/imc_user?did=1300-88', { token: b.token })).status).toBe(404);
    expect((await call('GET', '/api/proxy/imc_user?did=', { token: a.token })).status).toBe(400);
    await call('POST', '/api/call/did', { token: a.token, body: { did: '1300-88', description: '' } });
    expect((await call('GET', '/api/proxy/imc_user?did=1300-88', { token: a.token })).status).toBe(404);

    // CALL-40: 30 s unless the account sets another.
    const check = async (token: string) =>
      AuthCheckAnswer.parse((await call('POST', '/api/auth/check', { token })).body).acw_seconds;
    expect(await check(agent.token)).toBe(30);
    const cfg = await call('POST', '/api/call/config', { token: a.token, body: { sip_ws_url: null, acw_seconds: 45 } });
    expect(cfg.status, cfg.text).toBe(200);
    expect(CallConfigAnswer.parse(cfg.body).data.acw_seconds).toBe(45);
    expect(await check(agent.token)).toBe(45);
    expect(await check(b.token)).toBe(30);
    const badAcw = await call('POST', '/api/call/config', {
      token: a.token,
      body: { sip_ws_url: null, acw_seconds: -1 },
    });
    expect([badAcw.status, badAcw.body.description]).toEqual([400, CALL_STRINGS.badAcw]);
    expect(await check(agent.token)).toBe(45);
  });

  it('CALL-01 bad call reports are refused and change nothing', async () => {
    const a = await signUpVia(call);
    const b = await signUpVia(call);
    const c = CallAnswer.parse(
      (await start(a.token, { call_id: `x-${uniq()}`, direction: 'inbound', number: '1' })).body,
    );
    for (const body of [
      { call_id: '', direction: 'inbound', number: '1' },
      { call_id: 'a', direction: 'sideways', number: '1' },
      { call_id: 'a'.repeat(201), direction: 'inbound', number: '1' },
      { call_id: 'a', direction: 'inbound', number: 5 },
    ])
      expect((await start(a.token, body)).status).toBe(400);
    const text = await upload(a.token, Buffer.from('plain words'), 'text/plain', 'notes.txt');
    const notAudio = await end(a.token, { call_id: c.data.call_id, recording: text });
    expect([notAudio.status, notAudio.body.description]).toEqual([400, CALL_STRINGS.recordingNotAudio]);
    const bFile = await upload(b.token, shout, 'audio/wav', 'b.wav');
    const foreign = await end(a.token, { call_id: c.data.call_id, recording: bFile });
    expect([foreign.status, foreign.body.description]).toEqual([400, CALL_STRINGS.badRecording]);
    expect((await end(a.token, { call_id: c.data.call_id, duration: -1 })).status).toBe(400);
    expect(
      (await end(a.token, { call_id: c.data.call_id, transcript: [{ source: 'bot', transcription: 'x' }] })).status,
    ).toBe(400);
    const d = CallDetailAnswer.parse(
      (await call('GET', `/api/call/${c.data.ticket_id}`, { token: a.token })).body,
    ).data;
    expect(d.call).toMatchObject({ ended_at: null, has_recording: false, duration: 0 });
    expect(d.transcript).toEqual([]);
    expect((await call('GET', '/api/call/abc', { token: a.token })).status).toBe(400);
    expect((await call('GET', '/api/call/999999', { token: a.token })).status).toBe(404);
  });
});
