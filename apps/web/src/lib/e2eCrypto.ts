import {
  type CryptEnvelope,
  ENVELOPE_VERSION,
  envelopeText,
  looksLikeEnvelope,
  parseEnvelope,
} from '@parley/contracts';

/**
 * The encryption of conversations in the browser (CRYPT-03, CRYPT-04, CRYPT-11; docs/encryption.md), with
 * WebCrypto only. Pure functions of their inputs (and the random source): they run the same under Node's
 * webcrypto in the unit tests. Decryption never throws: it answers a `Decrypted` the screen can show.
 *
 * AES: every message has a fresh random 12-byte IV (never the stored one: a GCM nonce used twice with one key
 * gives away the XOR of the two texts and the authentication key). The stored IV is the HKDF salt that turns
 * the stored key into the message key, so both halves of what was shared are needed. RSA: a fresh AES-256-GCM
 * key per message, wrapped with RSA-OAEP (SHA-256) for each recipient's public key, named by key id.
 */

const subtle = () => globalThis.crypto.subtle;
const enc = new TextEncoder();
const dec = new TextDecoder('utf-8', { fatal: true });

export const toB64 = (bytes: ArrayBuffer | Uint8Array): string => {
  const a = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let s = '';
  for (let i = 0; i < a.length; i += 0x8000) s += String.fromCharCode(...a.subarray(i, i + 0x8000));
  return btoa(s);
};
export const fromB64 = (s: string): Uint8Array<ArrayBuffer> => {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
};
const random = (n: number) => globalThis.crypto.getRandomValues(new Uint8Array(n));
const hex16 = (b: ArrayBuffer) =>
  [...new Uint8Array(b).slice(0, 8)].map((x) => x.toString(16).padStart(2, '0')).join('');

/** An AES key as kept on this browser: 32 bytes of key, an IV (its salt), both base64. */
export interface AesSecret {
  key: string;
  iv: string;
}

/** The key id of an AES key and IV: the first 8 bytes of SHA-256(key || iv), hex. */
export async function aesKeyId(s: AesSecret): Promise<string> {
  const k = fromB64(s.key);
  const iv = fromB64(s.iv);
  const both = new Uint8Array(k.length + iv.length);
  both.set(k);
  both.set(iv, k.length);
  return hex16(await subtle().digest('SHA-256', both));
}

/** Whether an AES secret can be used: a 32-byte key and an IV of at least 12 bytes, both base64. */
export function validAesSecret(s: AesSecret): boolean {
  try {
    return fromB64(s.key).length === 32 && fromB64(s.iv).length >= 12;
  } catch {
    return false;
  }
}

async function aesMessageKey(s: AesSecret): Promise<CryptoKey> {
  const base = await subtle().importKey('raw', fromB64(s.key), 'HKDF', false, ['deriveKey']);
  return subtle().deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: fromB64(s.iv), info: enc.encode('parley-e2e-aes-v1') },
    base,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

/** The authenticated header of an envelope: changing the method or key id breaks the tag. */
const aad = (m: 'aes' | 'rsa', kid = '') => enc.encode(`parley-e2e:${ENVELOPE_VERSION}:${m}:${kid}`);

/** A new AES key and IV to share out of band. */
export function generateAesSecret(): AesSecret {
  return { key: toB64(random(32)), iv: toB64(random(12)) };
}

/** Encrypts a message's text with the shared AES key: the envelope to send. */
export async function encryptAes(text: string, s: AesSecret): Promise<string> {
  if (!validAesSecret(s)) throw new Error('The AES key on this browser is not a 256-bit key with its IV.');
  const kid = await aesKeyId(s);
  const iv = random(12);
  const ct = await subtle().encrypt(
    { name: 'AES-GCM', iv, additionalData: aad('aes', kid) },
    await aesMessageKey(s),
    enc.encode(text),
  );
  return envelopeText({ e2e: ENVELOPE_VERSION, m: 'aes', kid, iv: toB64(iv), ct: toB64(ct) });
}

// ---------------------------------------------------------------------------------------------------------
// RSA
// ---------------------------------------------------------------------------------------------------------

const OAEP = { name: 'RSA-OAEP', hash: 'SHA-256' } as const;
const pem = (label: string, der: ArrayBuffer) =>
  `-----BEGIN ${label}-----\n${
    toB64(der)
      .match(/.{1,64}/g)
      ?.join('\n') ?? ''
  }\n-----END ${label}-----`;
const derOf = (text: string, label: string) => {
  const m = new RegExp(`-----BEGIN ${label}-----([\\s\\S]+?)-----END ${label}-----`).exec(text);
  if (!m?.[1]) throw new Error(`Not a ${label.toLowerCase()} in PEM form.`);
  return fromB64(m[1].replace(/\s+/g, ''));
};

/** An RSA key pair made here: the private key stays on this browser, the public one goes to the server. */
export interface RsaPair {
  privateKey: string;
  publicKey: string;
  kid: string;
}

/** The key id of a public key (PEM): the first 8 bytes of the SHA-256 of its SPKI, hex (as the server). */
export async function rsaKeyId(publicKey: string): Promise<string> {
  return hex16(await subtle().digest('SHA-256', derOf(publicKey, 'PUBLIC KEY')));
}

/** A new RSA-OAEP key pair (3072 bits, SHA-256), both halves as PEM. */
export async function generateRsaPair(bits = 3072): Promise<RsaPair> {
  const pair = await subtle().generateKey(
    { ...OAEP, modulusLength: bits, publicExponent: new Uint8Array([1, 0, 1]) },
    true,
    ['encrypt', 'decrypt'],
  );
  const publicKey = pem('PUBLIC KEY', await subtle().exportKey('spki', pair.publicKey));
  const privateKey = pem('PRIVATE KEY', await subtle().exportKey('pkcs8', pair.privateKey));
  return { privateKey, publicKey, kid: await rsaKeyId(publicKey) };
}

/** The public key (PEM) of a private key (PEM): what this browser publishes, and the id it reads by. */
export async function publicOf(privateKey: string): Promise<string> {
  const priv = await subtle().importKey('pkcs8', derOf(privateKey, 'PRIVATE KEY'), OAEP, true, ['decrypt']);
  const jwk = await subtle().exportKey('jwk', priv);
  const pub = await subtle().importKey(
    'jwk',
    { kty: 'RSA', n: jwk.n, e: jwk.e, alg: 'RSA-OAEP-256', ext: true },
    OAEP,
    true,
    ['encrypt'],
  );
  return pem('PUBLIC KEY', await subtle().exportKey('spki', pub));
}

/** A recipient of an RSA message: a public key (PEM) and its id. */
export interface Recipient {
  kid: string;
  publicKey: string;
}

/** Encrypts a message's text for the recipients (each key id once): the envelope to send. */
export async function encryptRsa(text: string, recipients: Recipient[]): Promise<string> {
  const unique = [...new Map(recipients.map((r) => [r.kid, r])).values()];
  if (unique.length === 0) throw new Error('Nobody to encrypt for: no public key is published.');
  const raw = random(32);
  const key = await subtle().importKey('raw', raw, 'AES-GCM', false, ['encrypt']);
  const iv = random(12);
  const ct = await subtle().encrypt({ name: 'AES-GCM', iv, additionalData: aad('rsa') }, key, enc.encode(text));
  const keys: Record<string, string> = {};
  for (const r of unique) {
    const pub = await subtle().importKey('spki', derOf(r.publicKey, 'PUBLIC KEY'), OAEP, false, ['encrypt']);
    keys[r.kid] = toB64(await subtle().encrypt(OAEP, pub, raw));
  }
  return envelopeText({ e2e: ENVELOPE_VERSION, m: 'rsa', iv: toB64(iv), ct: toB64(ct), keys });
}

// ---------------------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------------------

/** What this browser holds to read with: the AES secret, or RSA private keys (current first, then older). */
export type Readers = { aes?: AesSecret; rsa?: { privateKey: string }[] };

/**
 * The outcome of reading a message. `plain`: not an envelope (shown as it is). `noKey`: no key of the method
 * here. `wrongKey`: a key of the method, but not the one it was encrypted with (or not for this browser's
 * RSA key). `unreadable`: damaged or tampered (the envelope is malformed, or the GCM tag does not check).
 */
export type Decrypted =
  | { kind: 'plain'; text: string }
  | { kind: 'text'; text: string }
  | { kind: 'noKey' | 'wrongKey' | 'unreadable' };

const rsaKidCache = new Map<string, Promise<string>>();
const kidOfPrivate = (privateKey: string) => {
  let p = rsaKidCache.get(privateKey);
  if (!p) {
    p = publicOf(privateKey).then(rsaKeyId);
    rsaKidCache.set(privateKey, p);
  }
  return p;
};

/** Reads a message's text with what this browser holds. Never throws. */
export async function decryptText(text: string, readers: Readers): Promise<Decrypted> {
  if (!looksLikeEnvelope(text)) return { kind: 'plain', text };
  const e = parseEnvelope(text);
  if (!e) return { kind: 'unreadable' };
  try {
    return await open(e, readers);
  } catch {
    return { kind: 'unreadable' };
  }
}

async function open(e: CryptEnvelope, readers: Readers): Promise<Decrypted> {
  if (e.m === 'aes') {
    const s = readers.aes;
    if (!s) return { kind: readers.rsa?.length ? 'wrongKey' : 'noKey' };
    if (!validAesSecret(s) || (await aesKeyId(s)) !== e.kid) return { kind: 'wrongKey' };
    const key = await aesMessageKey(s);
    return gcmOpen(key, e.iv, e.ct, aad('aes', e.kid));
  }
  const mine = readers.rsa ?? [];
  if (mine.length === 0) return { kind: readers.aes ? 'wrongKey' : 'noKey' };
  for (const k of mine) {
    let kid: string;
    try {
      kid = await kidOfPrivate(k.privateKey);
    } catch {
      continue;
    }
    const wrapped = e.keys[kid];
    if (!wrapped) continue;
    const priv = await subtle().importKey('pkcs8', derOf(k.privateKey, 'PRIVATE KEY'), OAEP, false, ['decrypt']);
    let raw: ArrayBuffer;
    try {
      raw = await subtle().decrypt(OAEP, priv, fromB64(wrapped));
    } catch {
      return { kind: 'unreadable' };
    }
    const key = await subtle().importKey('raw', raw, 'AES-GCM', false, ['decrypt']);
    return gcmOpen(key, e.iv, e.ct, aad('rsa'));
  }
  return { kind: 'wrongKey' };
}

async function gcmOpen(key: CryptoKey, iv: string, ct: string, additionalData: Uint8Array): Promise<Decrypted> {
  try {
    const plain = await subtle().decrypt(
      { name: 'AES-GCM', iv: fromB64(iv), additionalData: additionalData as Uint8Array<ArrayBuffer> },
      key,
      fromB64(ct),
    );
    return { kind: 'text', text: dec.decode(plain) };
  } catch {
    return { kind: 'unreadable' };
  }
}
