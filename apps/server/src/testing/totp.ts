import { generate } from 'otplib';

/** The TOTP code of `secret` at now plus `offsetSeconds`. */
export const totpAt = (secret: string, offsetSeconds = 0) =>
  generate({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSeconds });

/** A well-formed code that is none of the codes the server accepts around now. */
export async function wrongTotp(secret: string): Promise<string> {
  const near = new Set(await Promise.all([-90, -60, -30, 0, 30, 60, 90].map((o) => totpAt(secret, o))));
  for (let i = 100_000; ; i++) if (!near.has(String(i))) return String(i);
}
