import { parseEnvelope } from '@parley/contracts';
import { describe, expect, it } from 'vitest';
import {
  aesKeyId,
  decryptText,
  encryptAes,
  encryptRsa,
  fromB64,
  generateAesSecret,
  generateRsaPair,
  publicOf,
  rsaKeyId,
  toB64,
} from './e2eCrypto';

/** Flips one bit of a base64 field of an envelope. */
const flip = (envelope: string, field: 'ct' | 'iv') => {
  const e = JSON.parse(envelope);
  const b = fromB64(e[field]);
  b[b.length - 1]! ^= 1;
  e[field] = toB64(b);
  return JSON.stringify(e);
};

describe('encryption in the browser (WebCrypto)', () => {
  it('CRYPT-03 AES-256-GCM: a round trip; a fresh IV per message (never the stored one); the key id names the key', async () => {
    const s = generateAesSecret();
    expect(fromB64(s.key)).toHaveLength(32);
    const text = 'Card ending 4242 — merci 🙂';
    const a = await encryptAes(text, s);
    const b = await encryptAes(text, s);
    const ea = parseEnvelope(a);
    const eb = parseEnvelope(b);
    expect(ea?.m).toBe('aes');
    expect(ea && 'kid' in ea && ea.kid).toBe(await aesKeyId(s));
    expect(ea?.iv).not.toBe(eb?.iv);
    expect(ea?.iv).not.toBe(s.iv);
    expect(a).not.toContain('4242');
    expect(await decryptText(a, { aes: s })).toEqual({ kind: 'text', text });
    expect(await decryptText(b, { aes: s })).toEqual({ kind: 'text', text });
  });

  it('CRYPT-11 tampered, wrong key, no key: a typed answer, never a throw', async () => {
    const s = generateAesSecret();
    const sealed = await encryptAes('secret', s);
    expect(await decryptText(flip(sealed, 'ct'), { aes: s })).toEqual({ kind: 'unreadable' });
    expect(await decryptText(flip(sealed, 'iv'), { aes: s })).toEqual({ kind: 'unreadable' });
    expect(await decryptText(sealed.slice(0, -5), { aes: s })).toEqual({ kind: 'unreadable' });
    expect(await decryptText('{"e2e":1,"m":"aes"}', { aes: s })).toEqual({ kind: 'unreadable' });
    // The key id is authenticated: pointing the envelope at another key breaks it.
    const other = generateAesSecret();
    const moved = JSON.stringify({ ...JSON.parse(sealed), kid: await aesKeyId(other) });
    expect(await decryptText(moved, { aes: other })).toEqual({ kind: 'unreadable' });
    expect(await decryptText(sealed, { aes: other })).toEqual({ kind: 'wrongKey' });
    // The same key with another IV (salt) is another key.
    expect(await decryptText(sealed, { aes: { key: s.key, iv: other.iv } })).toEqual({ kind: 'wrongKey' });
    expect(await decryptText(sealed, {})).toEqual({ kind: 'noKey' });
    expect(await decryptText('hello', {})).toEqual({ kind: 'plain', text: 'hello' });
    await expect(encryptAes('x', { key: 'c2hvcnQ=', iv: s.iv })).rejects.toThrow(/256-bit/);
  });

  it('CRYPT-04 RSA: a key pair made here; the message key wrapped for each recipient; each reads it, others cannot', async () => {
    const [alice, bob, carol] = await Promise.all([
      generateRsaPair(2048),
      generateRsaPair(2048),
      generateRsaPair(2048),
    ]);
    expect(alice.privateKey).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(alice.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(await publicOf(alice.privateKey)).toBe(alice.publicKey);
    expect(await rsaKeyId(alice.publicKey)).toBe(alice.kid);
    const text = 'Shared between Alice and Bob';
    const sealed = await encryptRsa(text, [alice, bob, alice]);
    const e = parseEnvelope(sealed);
    expect(e?.m === 'rsa' && Object.keys(e.keys).sort()).toEqual([alice.kid, bob.kid].sort());
    expect(await decryptText(sealed, { rsa: [{ privateKey: alice.privateKey }] })).toEqual({ kind: 'text', text });
    expect(await decryptText(sealed, { rsa: [{ privateKey: bob.privateKey }] })).toEqual({ kind: 'text', text });
    expect(await decryptText(sealed, { rsa: [{ privateKey: carol.privateKey }] })).toEqual({ kind: 'wrongKey' });
    // After a rotation the older key still reads what was sent to it.
    expect(
      await decryptText(sealed, { rsa: [{ privateKey: carol.privateKey }, { privateKey: bob.privateKey }] }),
    ).toEqual({
      kind: 'text',
      text,
    });
    expect(await decryptText(sealed, {})).toEqual({ kind: 'noKey' });
    expect(await decryptText(flip(sealed, 'ct'), { rsa: [{ privateKey: bob.privateKey }] })).toEqual({
      kind: 'unreadable',
    });
    const badWrap = JSON.parse(sealed);
    const w = fromB64(badWrap.keys[bob.kid]);
    w[10]! ^= 1;
    badWrap.keys[bob.kid] = toB64(w);
    expect(await decryptText(JSON.stringify(badWrap), { rsa: [{ privateKey: bob.privateKey }] })).toEqual({
      kind: 'unreadable',
    });
    await expect(encryptRsa('x', [])).rejects.toThrow(/public key/);
  });
});
