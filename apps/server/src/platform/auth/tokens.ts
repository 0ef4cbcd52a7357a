import { createHash, randomBytes } from 'node:crypto';

/** 256 random bits, URL-safe. Tokens are shown once and stored only as hashes. */
export const newToken = () => randomBytes(32).toString('base64url');

/** SHA-256 is right here: tokens are long random values, not guessable passwords. */
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
