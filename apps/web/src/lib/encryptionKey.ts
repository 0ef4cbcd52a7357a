import { type ENCRYPTION_METHODS, MESSAGE_STRINGS } from '@parley/contracts';
import type { Readers } from './e2eCrypto';

/**
 * Where this browser keeps an account's encryption key (CRYPT-03, MSG-12). A ticket is encrypted when its
 * `encryption_method` is 'aes' or 'rsa'; its messages can be read and sent only on a browser holding a key
 * of that method. The key is kept in local storage under `parley.encryptionKey.<accountId>`, as JSON:
 * `{ "method": "aes", "key": "<base64>", "iv": "<base64>" }` (AES-256-GCM, its key and IV), or
 * `{ "method": "rsa", "privateKey": "<PEM>" }` (the user's own key; the public keys are the server's).
 * Anything else stored there (not JSON, another shape, empty fields) counts as no key.
 *
 * An RSA entry may also hold `previous`: the private keys it had before a rotation (newest first), so messages
 * sent to them stay readable here. Creating, importing and rotating keys: the settings card (features/encryption);
 * encrypting and reading: `lib/e2eCrypto.ts` (docs/encryption.md). Without a key, a message is failed at
 * once with "You cannot read or send message because you don't have the encryption key on this browser."
 * and never leaves the browser (CRYPT-06), and an upload is refused silently (CRYPT-05).
 */
export type EncryptionMethod = (typeof ENCRYPTION_METHODS)[number];

export type StoredEncryptionKey =
  | { method: 'aes'; key: string; iv: string }
  | { method: 'rsa'; privateKey: string; previous?: string[] };

interface KeyStorage {
  getItem(k: string): string | null;
}
interface WritableStorage extends KeyStorage {
  setItem(k: string, v: string): void;
  removeItem(k: string): void;
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
  if (v?.method === 'rsa' && text(v.privateKey)) {
    const previous = Array.isArray(v.previous) ? v.previous.filter(text) : [];
    return { method: 'rsa', privateKey: v.privateKey, ...(previous.length ? { previous } : {}) };
  }
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

/** The key this browser holds for an account, or null. */
export function storedKey(
  accountId: number,
  storage: KeyStorage | null = browserStorage(),
): StoredEncryptionKey | null {
  try {
    return parseStoredKey(storage?.getItem(encryptionKeyName(accountId)) ?? null);
  } catch {
    return null;
  }
}

/** The keys to read with (`lib/e2eCrypto` Readers): the AES secret, or the RSA private keys, newest first. */
export function readersOf(k: StoredEncryptionKey | null): Readers {
  if (!k) return {};
  if (k.method === 'aes') return { aes: { key: k.key, iv: k.iv } };
  return { rsa: [k.privateKey, ...(k.previous ?? [])].map((privateKey) => ({ privateKey })) };
}

/**
 * Keeps (or, with null, forgets) an account's key on this browser, and tells this tab's open screens: the
 * `storage` event reaches only other tabs by itself. Answers false when storage is blocked or full.
 */
export function saveStoredKey(
  accountId: number,
  key: StoredEncryptionKey | null,
  storage: WritableStorage | null = browserStorage() as WritableStorage | null,
): boolean {
  const name = encryptionKeyName(accountId);
  try {
    if (!storage) return false;
    if (key) storage.setItem(name, JSON.stringify(key));
    else storage.removeItem(name);
  } catch {
    return false;
  }
  if (typeof window !== 'undefined') window.dispatchEvent(new StorageEvent('storage', { key: name }));
  return true;
}
