import {
  EMAIL_STRINGS,
  MailboxAnswer,
  MailboxBody,
  MailboxIdParams,
  MailboxListAnswer,
  MailboxTestAnswer,
  OkAnswer,
  RetryEmailAnswer,
  RetryEmailInput,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DB } from '../../platform/db/db.js';
import type { Conversations } from '../messages/index.js';
import { retryMailboxReply } from './commands/retryMailboxReply.js';
import { createGraphMailbox, updateGraphMailbox } from './commands/saveGraphMailbox.js';
import { createMailbox, deleteMailbox, renewForwardingAddress, updateMailbox } from './commands/saveMailbox.js';
import { testMailbox } from './connectionTest.js';
import type { EmailFetchers } from './fetcher.js';
import type { GraphClient } from './graphClient.js';
import type { GraphSync } from './graphSync.js';
import { accountMailboxLimit, listMailboxes } from './mailboxes.queries.js';
import type { Secrets } from './secrets.js';

/**
 * Mailboxes: admins list, connect, change, remove and test them; the fetchers follow each change. Agents send
 * a failed mailbox reply again.
 */
export function emailRoutes(
  app: FastifyInstance,
  deps: {
    db: DB;
    conversations: Conversations;
    secrets: Secrets | null;
    fetchers: EmailFetchers;
    /** The domain of forwarding addresses while the inbound SMTP listener is on; null: none are shown. */
    forwardDomain: string | null;
    graph: GraphClient;
    graphSync: GraphSync;
  },
): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db, conversations, secrets, fetchers, forwardDomain, graph, graphSync } = deps;
  const ok = 'success' as const;
  /** The fetchers (IMAP) or a round of Graph (its subscription at once) follow a saved mailbox. */
  const follow = (accountId: number, id: number, kind: string) =>
    kind === 'graph' ? graphSync.kick(accountId, id) : fetchers.refresh();

  r.get(
    '/api/mailboxes',
    { config: { auth: 'admin' }, schema: { response: { 200: MailboxListAnswer } } },
    async (req) => ({
      result: ok,
      configured: secrets !== null,
      ...(secrets ? {} : { description: EMAIL_STRINGS.notConfigured }),
      limit: await accountMailboxLimit(db, req.auth!.accountId),
      forwarding: forwardDomain !== null,
      data: await listMailboxes(db, req.auth!.accountId, forwardDomain),
    }),
  );
  r.post(
    '/api/mailboxes',
    { config: { auth: 'admin' }, schema: { body: MailboxBody, response: { 200: MailboxAnswer } } },
    async (req) => {
      const body = req.body;
      const data =
        body.kind === 'graph'
          ? await createGraphMailbox(db, secrets, req.auth!, body)
          : await createMailbox(db, secrets, req.auth!, body, forwardDomain);
      follow(req.auth!.accountId, data.id, data.kind);
      return { result: ok, data };
    },
  );
  r.put(
    '/api/mailboxes/:id',
    {
      config: { auth: 'admin' },
      schema: { params: MailboxIdParams, body: MailboxBody, response: { 200: MailboxAnswer } },
    },
    async (req) => {
      const body = req.body;
      const data =
        body.kind === 'graph'
          ? await updateGraphMailbox(db, secrets, req.auth!, req.params.id, body)
          : await updateMailbox(db, secrets, req.auth!, req.params.id, body, forwardDomain);
      follow(req.auth!.accountId, data.id, data.kind);
      return { result: ok, data };
    },
  );
  r.delete(
    '/api/mailboxes/:id',
    { config: { auth: 'admin' }, schema: { params: MailboxIdParams, response: { 200: OkAnswer } } },
    async (req) => {
      const gone = await deleteMailbox(db, req.auth!, req.params.id);
      if (gone.kind === 'graph') graphSync.unsubscribe(gone);
      else fetchers.refresh();
      return { result: ok };
    },
  );
  // A new forwarding address; the old one is refused from now on.
  r.post(
    '/api/mailboxes/:id/forwarding',
    { config: { auth: 'admin' }, schema: { params: MailboxIdParams, response: { 200: MailboxAnswer } } },
    async (req) => ({
      result: ok,
      data: await renewForwardingAddress(db, req.auth!, req.params.id, forwardDomain),
    }),
  );
  r.post(
    '/api/mailboxes/:id/test',
    { config: { auth: 'admin' }, schema: { params: MailboxIdParams, response: { 200: MailboxTestAnswer } } },
    async (req) => ({ result: ok, ...(await testMailbox(db, secrets, req.auth!, req.params.id, graph)) }),
  );
  r.post(
    '/api/ticket/message/reply/retry',
    { config: { auth: 'user' }, schema: { body: RetryEmailInput, response: { 200: RetryEmailAnswer } } },
    async (req) => ({ result: ok, data: await retryMailboxReply(db, conversations, req.auth!, req.body.id) }),
  );
}
