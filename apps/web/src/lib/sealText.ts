import { MESSAGE_STRINGS } from '@parley/contracts';
import { encryptionApi } from './api/encryption';
import { encryptAes, encryptRsa, publicOf, type Recipient, rsaKeyId } from './e2eCrypto';
import { storedKey } from './encryptionKey';

/** The account's RSA recipients, read again after this long (a teammate's new key is picked up soon). */
const RECIPIENTS_TTL_MS = 15_000;
let cached: { accountId: number; at: number; list: Recipient[] } | null = null;

/**
 * CRYPT-04: everyone an RSA message is encrypted for: every active user of the account who published a public
 * key (so any teammate who opens the ticket can read it), and this browser's own key, published or not. Key
 * ids are computed here from the keys themselves, not taken from the server's list.
 */
async function recipients(accountId: number, privateKey: string): Promise<Recipient[]> {
  const own = await publicOf(privateKey);
  if (!cached || cached.accountId !== accountId || Date.now() - cached.at > RECIPIENTS_TTL_MS) {
    const keys = await encryptionApi.keys();
    const list = await Promise.all(
      keys
        .filter((k) => k.method === 'rsa')
        .map(async (k) => ({ kid: await rsaKeyId(k.key_value), publicKey: k.key_value })),
    );
    cached = { accountId, at: Date.now(), list };
  }
  return [{ kid: await rsaKeyId(own), publicKey: own }, ...cached.list];
}

/** Forgets the recipients read last (a key was just published or rotated). */
export function forgetRecipients(): void {
  cached = null;
}

/**
 * CRYPT-06, CRYPT-11: a message's text as it leaves for an encrypted ticket: the envelope, made with the key
 * on this browser now, or why it cannot be sent (no key of the method: the spec's text).
 */
export async function sealText(
  accountId: number,
  method: 'aes' | 'rsa',
  text: string,
): Promise<{ text: string } | { error: string }> {
  const k = storedKey(accountId);
  if (!k || k.method !== method) return { error: MESSAGE_STRINGS.noKey };
  try {
    if (k.method === 'aes') return { text: await encryptAes(text, k) };
    return { text: await encryptRsa(text, await recipients(accountId, k.privateKey)) };
  } catch (e) {
    return { error: (e as Error).message || MESSAGE_STRINGS.noKey };
  }
}
