import { z } from 'zod';

/**
 * End-to-end encryption of conversations (CRYPT-01 .. CRYPT-11, docs/encryption.md). The browser encrypts a
 * message's text before it leaves and decrypts it for display; the server stores and relays the envelope
 * below and never sees a key or a plaintext. Both sides read the envelope with `parseEnvelope`: the server to
 * refuse anything else on an encrypted ticket, the browser to decide what it can decrypt.
 */

/** The envelope's version; a later format gets a new number and both stay readable. */
export const ENVELOPE_VERSION = 1;
/** An envelope's longest text: 20,000 characters of plaintext with up to ~60 wrapped keys. */
export const ENVELOPE_MAX = 200_000;

const b64 = z.string().regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, 'not base64');
/** A key id: the first 8 bytes of a SHA-256, in hex (the AES key and IV; an RSA public key's SPKI). */
export const KeyId = z.string().regex(/^[0-9a-f]{16}$/, 'A key id is 16 hex digits.');
/** A fresh 12-byte GCM IV (16 base64 characters) per message. */
const iv = b64.length(16);
/** The ciphertext with its 16-byte GCM tag: at least 17 bytes. */
const ct = b64.min(24).max(ENVELOPE_MAX);

/** AES: the message encrypted with the shared key (derived with the stored IV as salt); `kid` names the key. */
export const AesEnvelope = z.strictObject({
  e2e: z.literal(ENVELOPE_VERSION),
  m: z.literal('aes'),
  kid: KeyId,
  iv,
  ct,
});
/** RSA: the message encrypted with a fresh AES-256-GCM key, wrapped (RSA-OAEP-256) for each public key by id. */
export const RsaEnvelope = z.strictObject({
  e2e: z.literal(ENVELOPE_VERSION),
  m: z.literal('rsa'),
  iv,
  ct,
  keys: z.record(KeyId, b64.min(344).max(1400)).refine((k) => {
    const n = Object.keys(k).length;
    return n >= 1 && n <= 200;
  }, 'An RSA envelope wraps its key for 1 to 200 public keys.'),
});
export const CryptEnvelope = z.discriminatedUnion('m', [AesEnvelope, RsaEnvelope]);
export type AesEnvelope = z.infer<typeof AesEnvelope>;
export type RsaEnvelope = z.infer<typeof RsaEnvelope>;
export type CryptEnvelope = z.infer<typeof CryptEnvelope>;

/** Whether a text looks like an envelope at all (cheap; `parseEnvelope` says whether it is a valid one). */
export const looksLikeEnvelope = (text: string) => text.startsWith(`{"e2e":`);

/** Pure: the envelope a message's text holds, or null when it is not a well-formed one. Never throws. */
export function parseEnvelope(text: string): CryptEnvelope | null {
  if (!looksLikeEnvelope(text) || text.length > ENVELOPE_MAX) return null;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  const r = CryptEnvelope.safeParse(v);
  return r.success ? r.data : null;
}

/** The text an envelope is sent as (the field order is fixed so equal envelopes read alike). */
export function envelopeText(e: CryptEnvelope): string {
  return e.m === 'aes'
    ? JSON.stringify({ e2e: e.e2e, m: e.m, kid: e.kid, iv: e.iv, ct: e.ct })
    : JSON.stringify({ e2e: e.e2e, m: e.m, iv: e.iv, ct: e.ct, keys: e.keys });
}

/** What the server and the browser say about encrypted conversations. */
export const ENCRYPTION_STRINGS = {
  notEnvelope:
    'This conversation is encrypted: a message must be encrypted on the browser before it is sent, and this one is not.',
  wrongMethod: (method: string) =>
    `This conversation is encrypted with ${method.toUpperCase()}: encrypt the message with that method.`,
  noFiles: 'Files cannot be sent in an encrypted conversation yet.',
  noTranslation: 'A message of an encrypted conversation cannot be translated.',
  badPublicKey: 'The public key must be an RSA public key of 2048 bits or more, in PEM form.',
  encryptedOnlyManual: 'Only a ticket opened by hand (MANUAL) can be encrypted.',
  firstMessagePlain: 'The first message of an encrypted ticket must be encrypted on the browser.',
  searchSkipped: 'Encrypted conversations are not searched: their messages can be read only on a browser with the key.',
  /** A notification of an encrypted message: its text is never shown outside the conversation. */
  notificationBody: 'New encrypted message',
  aiSkipped: 'AI reading, translation and suggestions are off for encrypted conversations.',
} as const;

/** The methods a published key may have (CRYPT-02). */
export const KEY_METHODS = ['rsa', 'aes'] as const;

/**
 * CRYPT-02, CRYPT-04: `POST /api/encryption/keys` publishes (or rotates: replaces) the caller's key of a method.
 * RSA: the public key (`key_type` 'public', SPKI PEM). AES: never the key itself, only its fingerprint
 * (`key_type` 'fingerprint', the key id), so teammates can see which shared key is in use.
 */
export const EncryptionKeyInput = z.discriminatedUnion('method', [
  z.strictObject({
    method: z.literal('rsa'),
    key_type: z.literal('public'),
    key_value: z
      .string()
      .trim()
      .max(4000, ENCRYPTION_STRINGS.badPublicKey)
      .regex(/^-----BEGIN PUBLIC KEY-----[\s\S]+-----END PUBLIC KEY-----$/, ENCRYPTION_STRINGS.badPublicKey),
  }),
  z.strictObject({ method: z.literal('aes'), key_type: z.literal('fingerprint'), key_value: KeyId }),
]);
export type EncryptionKeyInput = z.infer<typeof EncryptionKeyInput>;

/** CRYPT-02: one published key (the encryption record: method, key_type, key_value, username). */
export const EncryptionKeyItem = z.object({
  username: z.string(),
  name: z.string(),
  method: z.enum(KEY_METHODS),
  key_type: z.enum(['public', 'fingerprint']),
  key_value: z.string(),
  /** The key id the envelopes name (RSA: of the public key's SPKI; AES: the fingerprint itself). */
  kid: KeyId,
  updated_at: z.number(),
});
export type EncryptionKeyItem = z.infer<typeof EncryptionKeyItem>;
/** `GET /api/encryption/keys`: the account's published keys, of active users. */
export const EncryptionKeysAnswer = z.object({ result: z.literal('success'), data: z.array(EncryptionKeyItem) });
export type EncryptionKeysAnswer = z.infer<typeof EncryptionKeysAnswer>;
export const EncryptionKeyAnswer = z.object({ result: z.literal('success'), data: EncryptionKeyItem });
export type EncryptionKeyAnswer = z.infer<typeof EncryptionKeyAnswer>;
