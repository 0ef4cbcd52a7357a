import { type ENCRYPTION_METHODS, MESSAGE_STRINGS } from '@parley/contracts';

/**
 * Where this browser keeps an account's encryption key (CRYPT-03, MSG-12). A ticket is encrypted when its
 * `encryption_method` is 'aes' or 'rsa'; its messages can be read and sent only on a browser holding a key
 * of that method. The key is kept in local storage under `parley.encryptionKey.<accountId>`, as JSON:
 * `{ "method": "aes", "key": "<base64>", "iv": "<base64>" }` (AES-256-GCM, its key and IV), or
 * `{ "method": "rsa", "privateKey": "<PEM>" }` (the user's own key; the public keys are the server's).
 * Anything else stored there (not JSON, another shape, empty fields) counts as no key.
 *
 * Creating or importing a key and encrypting the content itself are the encryption capability's (CRYPT);
 * with a key present, sending goes on as it does for a plain ticket. Without one, a message is failed at
 * once with "You cannot read or send message because you don't have the encryption key on this browser."
 * and never leaves the browser (CRYPT-06), and an upload is refused silently (CRYPT-05).
 */
export type EncryptionMethod = (typeof ENCRYPTION_METHODS)[number];

export type StoredEncryptionKey = { method: 'aes'; key: string; iv: string } | { method: 'rsa'; privateKey: string };

interface KeyStorage {
  getItem(k: string): string | null;
}

/** The local-storage entry holding an account's key. */
export const encryptionKeyName = (accountId: number) => `parley.encryptionKey.${accountId}`;

/** Pure: the key an entry's raw text holds, or null when it holds none. */
export function parseStoredKey(raw: string | null): StoredEncryptionKey | null {
  if (!raw) return null;
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(raw);
  } catch {
    return null;
  }
  const text = (x: unknown): x is string => typeof x === 'string' && x !== '';
  if (v?.method === 'aes' && text(v.key) && text(v.iv)) return { method: 'aes', key: v.key, iv: v.iv };
  if (v?.method === 'rsa' && text(v.privateKey)) return { method: 'rsa', privateKey: v.privateKey };
  return null;
}

const browserStorage = (): KeyStorage | null => {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    // Storage blocked (a privacy setting): no key can be kept here.
    return null;
  }
};

/** Whether this browser holds the account's key for `method`; a plain ticket ('') needs none. */
export function hasEncryptionKey(
  accountId: number,
  method: EncryptionMethod,
  storage: KeyStorage | null = browserStorage(),
): boolean {
  if (method === '') return true;
  let raw: string | null = null;
  try {
    raw = storage?.getItem(encryptionKeyName(accountId)) ?? null;
  } catch {}
  return parseStoredKey(raw)?.method === method;
}

/** MSG-12, CRYPT-06: why a message of a ticket with this method cannot be sent from here, or undefined. */
export function missingKeyError(
  accountId: number,
  method: EncryptionMethod,
  storage: KeyStorage | null = browserStorage(),
): string | undefined {
  return hasEncryptionKey(accountId, method, storage) ? undefined : MESSAGE_STRINGS.noKey;
}
