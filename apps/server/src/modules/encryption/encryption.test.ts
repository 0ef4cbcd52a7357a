import { constants, createCipheriv, createHash, generateKeyPairSync, publicEncrypt, randomBytes } from 'node:crypto';
import { ENCRYPTION_STRINGS, envelopeText, MESSAGE_STRINGS, parseEnvelope } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';

/** A real AES-256-GCM envelope of `text` (what the browser makes; the server only sees its shape). */
function aesEnvelope(text: string, key = randomBytes(32)): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([c.update(text, 'utf8'), c.final(), c.getAuthTag()]);
  const kid = createHash('sha256').update(key).digest('hex').slice(0, 16);
  return envelopeText({ e2e: 1, m: 'aes', kid, iv: iv.toString('base64'), ct: ct.toString('base64') });
}

const rsa = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
const pemOf = (k: ReturnType<typeof rsa>) => k.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const kidOf = (k: ReturnType<typeof rsa>) =>
  createHash('sha256')
    .update(k.publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16);

/** An RSA envelope: a fresh message key wrapped (RSA-OAEP-256) for each key pair given. */
function rsaEnvelope(text: string, pairs: ReturnType<typeof rsa>[]): string {
  const key = randomBytes(32);
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([c.update(text, 'utf8'), c.final(), c.getAuthTag()]);
  const keys: Record<string, string> = {};
  for (const p of pairs)
    keys[kidOf(p)] = publicEncrypt(
      { key: p.publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      key,
    ).toString('base64');
  return envelopeText({ e2e: 1, m: 'rsa', iv: iv.toString('base64'), ct: ct.toString('base64'), keys });
}

describe('the envelope', () => {
  it('CRYPT-11 a well-formed envelope parses; anything else (plain text, tampered shape) is null, never a throw', () => {
    const aes = aesEnvelope('hello');
    expect(parseEnvelope(aes)?.m).toBe('aes');
    expect(parseEnvelope(rsaEnvelope('hello', [rsa()]))?.m).toBe('rsa');
    for (const bad of [
      'hello',
      '{"e2e":1}',
      '{"e2e":1,"m":"aes"',
      aes.replace('"m":"aes"', '"m":"des"'),
      aes.replace(/"iv":"[^"]+"/, '"iv":"short"'),
      aes.replace(/"ct":"[^"]+"/, '"ct":"not base64!"'),
      aes.replace('}', ',"extra":1}'),
      '{"e2e":2,"m":"aes","kid":"0123456789abcdef","iv":"AAAAAAAAAAAAAAAA","ct":"AAAAAAAAAAAAAAAAAAAAAAAA"}',
    ])
      expect(parseEnvelope(bad)).toBeNull();
  });
});

describe.each(dialects)('encryption (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  let a: SignedUp;
  let b: SignedUp;
  let agent: { id: number; token: string; username: string };
  const db = () => s.handle.db;

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
    a = await signUpVia(call);
    b = await signUpVia(call);
    agent = await addUserVia(call, a.token, { username: `agent-${uniq()}`, type: 'agent' });
  });
  afterAll(async () => {
    await s?.stop();
  });

  const create = async (token: string, body: Record<string, unknown>) =>
    call('POST', '/api/ticket/create', { token, body: { title: 'Secret matter', ...body } });
  const send = (token: string, ticketId: number, message: string, extra: Record<string, unknown> = {}) =>
    call('POST', '/api/ticket/message', { token, body: { ticket_id: ticketId, message, ...extra } });

  it('CRYPT-01 CRYPT-09 an agent opens an encrypted ticket; its list item carries the encryption flag', async () => {
    const made = await create(agent.token, { encryption_method: 'rsa' });
    expect(made.status, made.text).toBe(200);
    expect(made.body.data.encryption).toBe(true);
    const row = await db()
      .selectFrom('tickets')
      .select('encryption_method')
      .where('id', '=', made.body.data.id)
      .executeTakeFirstOrThrow();
    expect(row.encryption_method).toBe('rsa');
    const plain = await create(agent.token, {});
    expect(plain.body.data.encryption).toBe(false);

    // Only a MANUAL ticket, and a first message only as an envelope of the method.
    const call_ = await create(agent.token, { encryption_method: 'aes', channel: 'CALL' });
    expect(call_.status).toBe(400);
    expect(call_.text).toContain(ENCRYPTION_STRINGS.encryptedOnlyManual);
    const firstPlain = await create(agent.token, { encryption_method: 'aes', name: 'Pat', message: 'my card number' });
    expect(firstPlain.status).toBe(400);
    expect(firstPlain.text).toContain(ENCRYPTION_STRINGS.firstMessagePlain);
    const bad = await create(agent.token, { encryption_method: 'des' });
    expect(bad.status).toBe(400);
    const firstSealed = await create(agent.token, {
      encryption_method: 'aes',
      name: 'Pat',
      message: aesEnvelope('hi'),
    });
    expect(firstSealed.status, firstSealed.text).toBe(200);
  });

  it('CRYPT-11 an encrypted ticket takes only envelopes of its method: plaintext, the other method, files and translations are refused and nothing is stored', async () => {
    const id = (await create(agent.token, { encryption_method: 'aes' })).body.data.id as number;
    const count = async () =>
      Number(
        (
          await db()
            .selectFrom('messages')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('ticket_id', '=', id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    const plain = await send(agent.token, id, 'the password is hunter2');
    expect(plain.status).toBe(400);
    expect(plain.body.description).toBe(ENCRYPTION_STRINGS.notEnvelope);
    const other = await send(agent.token, id, rsaEnvelope('x', [rsa()]));
    expect(other.status).toBe(400);
    expect(other.body.description).toBe(ENCRYPTION_STRINGS.wrongMethod('aes'));
    const tampered = await send(agent.token, id, aesEnvelope('x').replace('"e2e":1', '"e2e":1,"note":"x"'));
    expect(tampered.status).toBe(400);
    const translated = await send(agent.token, id, aesEnvelope('x'), { original: { lang: 'en', text: 'x' } });
    expect(translated.status).toBe(400);
    expect(translated.body.description).toBe(ENCRYPTION_STRINGS.noTranslation);
    const html = await send(agent.token, id, aesEnvelope('x'), { type: 'text/html' });
    expect(html.status).toBe(400);
    // CRYPT-05: no file is taken into an encrypted conversation.
    const form = new FormData();
    form.append('ticket_id', String(id));
    form.append('attachment[]', new Blob(['secret notes'], { type: 'text/plain' }), 'notes.txt');
    const up = await fetch(`${s.url}/api/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agent.token}` },
      body: form,
    });
    expect(up.status).toBe(400);
    expect(((await up.json()) as { description: string }).description).toBe(ENCRYPTION_STRINGS.noFiles);
    // A translation of its text is refused too.
    const tr = await call('POST', '/api/translate', {
      token: agent.token,
      body: { ticketId: id, text: [{ id: 1, message: 'x' }], target: 'fr' },
    });
    expect(tr.status).toBe(400);
    expect(await count()).toBe(before);

    const sealed = aesEnvelope('fine');
    const ok = await send(agent.token, id, sealed, { client_id: 'queue-abcdefghij' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data.message).toBe(sealed);
    expect(await count()).toBe(before + 1);
    // A plain ticket is unchanged: any text goes.
    const plainTicket = (await create(agent.token, {})).body.data.id as number;
    expect((await send(agent.token, plainTicket, 'hello')).status).toBe(200);
    expect((await send(agent.token, plainTicket, '')).body.description).toBe(MESSAGE_STRINGS.empty);
  });

  it('CRYPT-02 CRYPT-04 users publish and rotate their RSA public key; the account lists its keys; bad keys are refused', async () => {
    const first = rsa();
    const put = await call('POST', '/api/encryption/keys', {
      token: agent.token,
      body: { method: 'rsa', key_type: 'public', key_value: pemOf(first) },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.data).toMatchObject({ username: agent.username, method: 'rsa', kid: kidOf(first) });
    const fp = await call('POST', '/api/encryption/keys', {
      token: a.token,
      body: { method: 'aes', key_type: 'fingerprint', key_value: '0123456789abcdef' },
    });
    expect(fp.status, fp.text).toBe(200);

    // Rotation replaces the key: one row per user and method.
    const second = rsa();
    const rot = await call('POST', '/api/encryption/keys', {
      token: agent.token,
      body: { method: 'rsa', key_type: 'public', key_value: pemOf(second) },
    });
    expect(rot.status, rot.text).toBe(200);
    const list = await call('GET', '/api/encryption/keys', { token: a.token });
    expect(list.status, list.text).toBe(200);
    const mine = list.body.data.filter((k: { username: string }) => k.username === agent.username);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      method: 'rsa',
      key_type: 'public',
      key_value: pemOf(second).trim(),
      kid: kidOf(second),
    });
    expect(list.body.data.find((k: { username: string }) => k.username === a.username)).toMatchObject({
      method: 'aes',
      key_type: 'fingerprint',
      key_value: '0123456789abcdef',
      kid: '0123456789abcdef',
    });

    for (const body of [
      { method: 'rsa', key_type: 'public', key_value: 'not a key' },
      { method: 'rsa', key_type: 'public', key_value: '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----' },
      {
        method: 'rsa',
        key_type: 'public',
        key_value: generateKeyPairSync('ec', { namedCurve: 'P-256' })
          .publicKey.export({ type: 'spki', format: 'pem' })
          .toString(),
      },
      {
        method: 'rsa',
        key_type: 'public',
        key_value: generateKeyPairSync('rsa', { modulusLength: 1024 })
          .publicKey.export({ type: 'spki', format: 'pem' })
          .toString(),
      },
      { method: 'aes', key_type: 'fingerprint', key_value: 'the key itself' },
      { method: 'aes', key_type: 'public', key_value: '0123456789abcdef' },
    ]) {
      const r = await call('POST', '/api/encryption/keys', { token: agent.token, body });
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
    }
    expect((await call('GET', '/api/encryption/keys')).status).toBe(401);

    // Tenant isolation: account B sees none of A's keys.
    const other = await call('GET', '/api/encryption/keys', { token: b.token });
    expect(other.status).toBe(200);
    expect(other.body.data).toEqual([]);
  });

  it('CRYPT-04 CRYPT-11 an RSA exchange: the database holds the envelopes and no plaintext anywhere; search and AI skip the conversation and search says so', async () => {
    const pairs = [rsa(), rsa()];
    const id = (await create(agent.token, { encryption_method: 'rsa' })).body.data.id as number;
    const secrets = [`platypus ${uniq()}`, `wombat ${uniq()}`];
    const sent: string[] = [];
    for (const [i, text] of secrets.entries()) {
      const env = rsaEnvelope(text, pairs);
      const r = await send(i === 0 ? agent.token : a.token, id, env);
      expect(r.status, r.text).toBe(200);
      sent.push(env);
    }
    const rows = await db()
      .selectFrom('messages')
      .select(['message', 'translated_text'])
      .where('ticket_id', '=', id)
      .execute();
    expect(rows.map((r) => r.message)).toEqual(expect.arrayContaining(sent));
    // Every text column of every table the exchange could reach: no plaintext.
    const everything = JSON.stringify([
      await db().selectFrom('messages').selectAll().where('account_id', '=', a.accountId).execute(),
      await db().selectFrom('events').selectAll().where('account_id', '=', a.accountId).execute(),
      await db().selectFrom('tickets').selectAll().where('account_id', '=', a.accountId).execute(),
    ]);
    for (const t of secrets) expect(everything).not.toContain(t.split(' ')[1]);

    // Search does not look into encrypted conversations, and says so; a plain one is still searched.
    const plain = (await create(agent.token, {})).body.data.id as number;
    const word = `numbat${uniq()}`;
    expect((await send(agent.token, plain, `a ${word} here`)).status).toBe(200);
    const found = await call('GET', `/api/search/data?entity=${word}&search_index=0&search_message_index=0`, {
      token: a.token,
    });
    expect(found.status, found.text).toBe(200);
    expect(found.body.messageCount).toBe(1);
    expect(found.body.encrypted).toBe(ENCRYPTION_STRINGS.searchSkipped);
    // Words of the envelope itself (its field names) find nothing.
    const envelopeWords = await call('GET', '/api/search/data?entity=e2e&search_index=0&search_message_index=0', {
      token: a.token,
    });
    expect(envelopeWords.body.messageCount).toBe(0);
    const other = await call('GET', `/api/search/data?entity=${word}&search_index=0&search_message_index=0`, {
      token: b.token,
    });
    expect(other.body.encrypted).toBeUndefined();

    // The AI is never asked about an encrypted conversation's text.
    const msg = await db()
      .selectFrom('messages')
      .select('id')
      .where('ticket_id', '=', id)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    const ai = await call('GET', `/api/wauchat/ticket_recommendation?messageId=${msg.id}&text=hello&channel=MANUAL`, {
      token: a.token,
    });
    expect(ai.status).toBe(400);
    expect(ai.body.description).toBe(ENCRYPTION_STRINGS.aiSkipped);
  });

  it('CRYPT-01 tenant isolation: another account cannot send to, or learn of, an encrypted ticket', async () => {
    const id = (await create(agent.token, { encryption_method: 'aes' })).body.data.id as number;
    const r = await send(b.token, id, aesEnvelope('x'));
    expect(r.status).toBe(404);
  });
});
