import fs from 'node:fs';
import path from 'node:path';
import webpush from 'web-push';
import type { DB, Dialect } from '../../platform/db/db.js';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

const FILE = 'vapid.json';
const ROW = 'vapid';

const parse = (s: string): VapidKeys | null => {
  try {
    const v = JSON.parse(s) as Partial<VapidKeys>;
    return typeof v.publicKey === 'string' && typeof v.privateKey === 'string'
      ? { publicKey: v.publicKey, privateKey: v.privateKey }
      : null;
  } catch {
    return null;
  }
};

/**
 * NOTIF-36 (design): the server's VAPID key pair, made on the first start. On SQLite it lives in
 * `$DATA_DIR/vapid.json` (mode 0600) next to the database. On Postgres the nodes share no data dir, so it is
 * a row of `server_state` (the first node to insert it wins; every node then reads the same pair). Browsers
 * bind a subscription to the public key, so the pair must never change once made.
 */
export async function loadVapidKeys(db: DB, dialect: Dialect, dataDir: string): Promise<VapidKeys> {
  if (dialect === 'sqlite') {
    const file = path.join(dataDir, FILE);
    const existing = fs.existsSync(file) ? parse(fs.readFileSync(file, 'utf8')) : null;
    if (existing) return existing;
    const keys = webpush.generateVAPIDKeys();
    fs.mkdirSync(dataDir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(keys), { mode: 0o600 });
    // Two processes starting at once: the link fails for the second, which then reads the first one's pair.
    try {
      fs.linkSync(tmp, file);
    } catch {}
    fs.rmSync(tmp, { force: true });
    return parse(fs.readFileSync(file, 'utf8')) ?? keys;
  }
  const fresh = webpush.generateVAPIDKeys();
  await db
    .insertInto('server_state')
    .values({ name: ROW, value: JSON.stringify(fresh), created_at: Date.now() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('server_state').select('value').where('name', '=', ROW).executeTakeFirstOrThrow();
  const keys = parse(row.value);
  if (!keys) throw new Error('server_state.vapid is not a key pair');
  return keys;
}
