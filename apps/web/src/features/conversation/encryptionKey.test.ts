import { MESSAGE_STRINGS } from '@parley/contracts';
import { describe, expect, it } from 'vitest';
import { encryptionKeyName, hasEncryptionKey, missingKeyError, parseStoredKey } from './encryptionKey';

const storage = (entries: Record<string, string>) => ({ getItem: (k: string) => entries[k] ?? null });
const aes = JSON.stringify({ method: 'aes', key: 'a2V5', iv: 'aXY=' });

describe('encryption key on this browser', () => {
  it('CRYPT-03 an AES key and IV kept in local storage per account, as JSON', () => {
    expect(encryptionKeyName(7)).toBe('parley.encryptionKey.7');
    expect(parseStoredKey(aes)).toEqual({ method: 'aes', key: 'a2V5', iv: 'aXY=' });
    expect(parseStoredKey(JSON.stringify({ method: 'rsa', privateKey: 'pem' }))).toEqual({
      method: 'rsa',
      privateKey: 'pem',
    });
    // Anything else kept there is no key.
    for (const raw of [
      null,
      '',
      'not json',
      'null',
      '42',
      '"aes"',
      JSON.stringify({ method: 'aes', key: 'a2V5' }),
      JSON.stringify({ method: 'aes', key: '', iv: 'aXY=' }),
      JSON.stringify({ method: 'aes', key: 1, iv: 'aXY=' }),
      JSON.stringify({ method: 'rsa' }),
      JSON.stringify({ method: 'des', key: 'k', iv: 'i' }),
    ])
      expect(parseStoredKey(raw)).toBeNull();
  });

  it('MSG-12 CRYPT-06 an encrypted ticket needs a key of its method for this account; a plain one none', () => {
    const s = storage({ [encryptionKeyName(7)]: aes });
    expect(hasEncryptionKey(7, 'aes', s)).toBe(true);
    expect(hasEncryptionKey(7, 'rsa', s)).toBe(false);
    expect(hasEncryptionKey(8, 'aes', s)).toBe(false);
    expect(hasEncryptionKey(8, '', s)).toBe(true);
    expect(hasEncryptionKey(7, 'aes', null)).toBe(false);
    const blocked = {
      getItem: () => {
        throw new Error('SecurityError');
      },
    };
    expect(hasEncryptionKey(7, 'aes', blocked)).toBe(false);
  });

  it('MSG-12 CRYPT-07 a send with no key fails with the spec text', () => {
    expect(missingKeyError(7, 'aes', storage({}))).toBe(MESSAGE_STRINGS.noKey);
    expect(MESSAGE_STRINGS.noKey).toBe(
      "You cannot read or send message because you don't have the encryption key on this browser.",
    );
    expect(missingKeyError(7, 'aes', storage({ [encryptionKeyName(7)]: aes }))).toBeUndefined();
    expect(missingKeyError(7, '', storage({}))).toBeUndefined();
  });
});
