/** End-to-end encryption of conversations: published keys and the server's checks (docs/encryption.md). */

/** Whether a ticket's method encrypts it, and the check of a message sent to an encrypted ticket. */
export { checkEncryptedMessage, isEncrypted } from './encryption.js';
/** HTTP routes of the module: `GET`/`POST /api/encryption/keys`. */
export { encryptionRoutes } from './encryption.routes.js';
