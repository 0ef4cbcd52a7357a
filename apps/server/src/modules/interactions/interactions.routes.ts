import { INTERACTION_STRINGS, InteractionsAnswer, InteractionsQuery } from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import type { DB } from '../../platform/db/db.js';
import { badRequest } from '../../platform/http/errors.js';
import type { Conversations } from '../messages/index.js';
import { listInteractions } from './interactions.queries.js';

/** `GET /api/interactions`: one page of the account's timeline, newest first, with its filters. */
export function interactionRoutes(app: FastifyInstance, deps: { db: DB; conversations: Conversations }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/api/interactions',
    { config: { auth: 'user' }, schema: { querystring: InteractionsQuery, response: { 200: InteractionsAnswer } } },
    async (req) => {
      const auth = req.auth!;
      const { agent: username, ...rest } = req.query;
      let agent: { id: number; username: string } | undefined;
      if (username) {
        // Usernames are unique case-insensitively; an unknown one, or another account's, is a 400.
        const u = await deps.db
          .selectFrom('users')
          .select(['id', 'username'])
          .where('account_id', '=', auth.accountId)
          .where(sql`lower(username)`, '=', username.toLowerCase())
          .executeTakeFirst();
        if (!u) throw badRequest(INTERACTION_STRINGS.unknownAgent);
        agent = { id: Number(u.id), username: u.username };
      }
      const page = await listInteractions(
        deps.db,
        deps.conversations,
        { accountId: auth.accountId, userId: auth.userId },
        { ...rest, agent },
      );
      return { result: 'success' as const, ...page };
    },
  );
}
