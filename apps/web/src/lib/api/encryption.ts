import type { EncryptionKeyAnswer, EncryptionKeyInput, EncryptionKeysAnswer } from '@parley/contracts';
import { api } from '../http';

/** CRYPT-02, CRYPT-04: the account's published keys, and publishing (or rotating) one's own. */
export const encryptionApi = {
  keys: () => api<EncryptionKeysAnswer>('GET', '/api/encryption/keys').then((r) => r.data),
  publish: (input: EncryptionKeyInput) =>
    api<EncryptionKeyAnswer>('POST', '/api/encryption/keys', input).then((r) => r.data),
};
