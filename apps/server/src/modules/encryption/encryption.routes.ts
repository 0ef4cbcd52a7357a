import { EncryptionKeyAnswer, EncryptionKeyInput, EncryptionKeysAnswer } from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DB } from '../../platform/db/db.js';
import { listKeys, publishKey } from './encryption.js';

/**
 * CRYPT-02, CRYPT-04: the account's published keys (what a sender wraps each message's key for, and which
 * shared AES key is in use), and publishing or rotating one's own.
 */
export function encryptionRoutes(app: FastifyInstance, deps: { db: DB }) {
  const { db } = deps;
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/api/encryption/keys',
    { config: { auth: 'user' }, schema: { response: { 200: EncryptionKeysAnswer } } },
    async (req) => ({ result: 'success' as const, data: await listKeys(db, req.auth!.accountId) }),
  );
  r.post(
    '/api/encryption/keys',
    { config: { auth: 'user' }, schema: { body: EncryptionKeyInput, response: { 200: EncryptionKeyAnswer } } },
    async (req) => ({ result: 'success' as const, data: await publishKey(db, req.auth!, req.body) }),
  );
}
