import { ErrorCode, GraphNotificationBody, GraphNotifyQuery } from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AppError } from '../../platform/http/errors.js';
import { acceptGraphNotifications, GRAPH_NOTIFY_PATH, type GraphInDeps } from './graphInbound.js';

/**
 * Microsoft Graph's calls to us (public: Graph signs nothing; each notification proves itself by its
 * subscription's clientState). The validation handshake (`?validationToken=`) is echoed as text/plain within
 * Graph's 10 seconds; change notifications are taken (committed as events) and answered 202.
 */
export function graphRoutes(app: FastifyInstance, deps: GraphInDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post(
    GRAPH_NOTIFY_PATH,
    { config: { auth: 'public' }, schema: { querystring: GraphNotifyQuery } },
    async (req, reply) => {
      if (req.query.validationToken !== undefined)
        return reply
          .code(200)
          .header('x-content-type-options', 'nosniff')
          .type('text/plain; charset=utf-8')
          .send(req.query.validationToken);
      // Validated here, not by the route's schema: the handshake above comes with an empty text/plain body.
      const parsed = GraphNotificationBody.safeParse(req.body);
      if (!parsed.success)
        throw new AppError(400, ErrorCode.validation, 'A Microsoft Graph change notification is {"value": [...]}.');
      await acceptGraphNotifications(deps, parsed.data);
      return reply.code(202).send();
    },
  );
}
