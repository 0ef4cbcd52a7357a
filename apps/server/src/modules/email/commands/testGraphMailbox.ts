import { EMAIL_STRINGS, type MailboxTestAnswer } from '@parley/contracts';
import { type GraphClient, graphAppOf, graphWords, userPath } from '../graphClient.js';
import type { MailboxRow } from '../mailboxes.queries.js';
import type { Secrets } from '../secrets.js';

type Result = NonNullable<MailboxTestAnswer['graph']>;

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
): Promise<Result> {
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
