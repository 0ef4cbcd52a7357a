import { createRequire } from 'node:module';
import { EMAIL_STRINGS, type MailboxTestAnswer } from '@parley/contracts';
import type * as Imap from 'imapflow';
import nodemailer from 'nodemailer';
import type { AuthContext } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import { notFound } from '../../platform/http/errors.js';
import { requireSecrets } from './commands/saveMailbox.js';
import { type GraphClient, graphAppOf, graphWords, userPath } from './graphClient.js';
import { findMailbox, type MailboxRow } from './mailboxes.queries.js';
import type { Secrets } from './secrets.js';

/** A connection test answers within seconds, whatever the server does. */
const TEST_TIMEOUT_MS = 10_000;

type Result = MailboxTestAnswer['imap'];
type GraphResult = NonNullable<MailboxTestAnswer['graph']>;

/** The server's own words of a failure: its response line when it gave one, else the error. */
export function serverWords(err: unknown): string {
  const e = err as { responseText?: unknown; response?: unknown; message?: unknown; code?: unknown };
  const words = e?.responseText || e?.response || e?.message || String(err);
  return String(words).slice(0, 1000);
}

/** The IMAP server's settings of a mailbox row, its password opened. */
export function imapOptions(row: MailboxRow, password: string) {
  return {
    host: row.imap_host,
    port: Number(row.imap_port),
    secure: Number(row.imap_tls) === 1,
    auth: { user: row.imap_user, pass: password },
    logger: false as const,
    connectionTimeout: TEST_TIMEOUT_MS,
    greetingTimeout: TEST_TIMEOUT_MS,
  };
}

async function testImap(row: MailboxRow, password: string | null): Promise<Result> {
  if (password === null) return { ok: false, response: EMAIL_STRINGS.cannotDecrypt };
  // Loaded with the first test of a mailbox, as the fetcher loads it (a server without mailboxes never does).
  const { ImapFlow } = createRequire(import.meta.url)('imapflow') as typeof Imap;
  const client = new ImapFlow({ ...imapOptions(row, password), verifyOnly: true });
  client.on('error', () => {});
  try {
    await client.connect();
    const greeting = client.greeting?.trim();
    return { ok: true, response: greeting ? `${EMAIL_STRINGS.testOk} ${greeting}` : EMAIL_STRINGS.testOk };
  } catch (err) {
    return { ok: false, response: serverWords(err) };
  } finally {
    client.close();
  }
}

async function testSmtp(row: MailboxRow, password: string | null): Promise<Result> {
  if (password === null) return { ok: false, response: EMAIL_STRINGS.cannotDecrypt };
  const transport = nodemailer.createTransport({
    host: row.smtp_host,
    port: Number(row.smtp_port),
    secure: Number(row.smtp_tls) === 1,
    ...(row.smtp_secret !== '' ? { auth: { user: row.smtp_user, pass: password } } : {}),
    connectionTimeout: TEST_TIMEOUT_MS,
    greetingTimeout: TEST_TIMEOUT_MS,
    socketTimeout: TEST_TIMEOUT_MS,
  });
  try {
    await transport.verify();
    return { ok: true, response: EMAIL_STRINGS.testOk };
  } catch (err) {
    return { ok: false, response: serverWords(err) };
  } finally {
    transport.close();
  }
}

/**
 * A Microsoft 365 mailbox's connection test: a token for its app, then `GET /users/{address}`, so the
 * tenant, the app, its secret, its permission and the mailbox's user are all tried. A failure answers Graph's
 * own words (the token endpoint's `error_description`, the API's `error.message`).
 */
export async function testGraphMailbox(
  graph: GraphClient,
  secrets: Secrets,
  accountId: number,
  row: MailboxRow,
): Promise<GraphResult> {
  const app = graphAppOf(row, secrets, accountId);
  if (!app) return { ok: false, response: EMAIL_STRINGS.cannotDecrypt };
  try {
    const res = await graph.request(app, 'GET', `${userPath(row.address)}?$select=displayName,mail`);
    const user = (await res.json().catch(() => ({}))) as { displayName?: unknown };
    return {
      ok: true,
      response: EMAIL_STRINGS.graphTestOk(typeof user.displayName === 'string' ? user.displayName : ''),
    };
  } catch (err) {
    return { ok: false, response: graphWords(err) };
  }
}

/**
 * Tries the mailbox's IMAP login and SMTP login (nodemailer's `verify`) at once and answers each side's
 * result in the server's own words. Changes nothing; a failure is an answer, not an error.
 */
export async function testMailbox(
  db: DB,
  secrets: Secrets | null,
  auth: AuthContext,
  id: number,
  graph?: GraphClient,
): Promise<Omit<MailboxTestAnswer, 'result'>> {
  const box = requireSecrets(secrets);
  const row = await findMailbox(db, auth.accountId, id);
  if (!row) throw notFound(EMAIL_STRINGS.notFound);
  if (row.kind === 'graph' && graph) return { graph: await testGraphMailbox(graph, box, auth.accountId, row) };
  const open = (sealed: string) => (sealed === '' ? '' : box.open(auth.accountId, sealed));
  // A forwarding-only mailbox has no IMAP login to try: its SMTP side alone.
  if (row.kind === 'forwarding') return { smtp: await testSmtp(row, open(row.smtp_secret)) };
  const [imap, smtp] = await Promise.all([testImap(row, open(row.imap_secret)), testSmtp(row, open(row.smtp_secret))]);
  return { imap, smtp };
}
