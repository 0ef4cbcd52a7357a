import { SearchAnswer, SearchQuery } from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DB } from '../../platform/db/db.js';
import { contactsVisibleTo } from '../contacts/index.js';
import type { Conversations } from '../messages/index.js';
import { search } from './search.queries.js';

/** SEARCH-08: every signed-in user searches their own account, within what they may read. */
export function searchRoutes(app: FastifyInstance, deps: { db: DB; conversations: Conversations }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/api/search/data',
    { config: { auth: 'user' }, schema: { querystring: SearchQuery, response: { 200: SearchAnswer } } },
    async (req) => ({
      result: 'success' as const,
      ...(await search(
        deps.db,
        deps.conversations,
        {
          accountId: req.auth!.accountId,
          userId: req.auth!.userId,
          contacts: await contactsVisibleTo(deps.db, req.auth!),
        },
        req.query,
      )),
    }),
  );
}
