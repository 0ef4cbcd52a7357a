import { hash, verify } from '@node-rs/argon2';

/** argon2id with the library's defaults (~30 ms a hash here). */
export const hashPassword = (password: string) => hash(password);

// Verifying against a real hash when the user does not exist keeps both answers equally slow.
let dummy: Promise<string> | null = null;

export async function verifyPassword(stored: string | undefined, password: string): Promise<boolean> {
  if (!stored) {
    dummy ??= hash('parley-dummy-password');
    await verify(await dummy, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
