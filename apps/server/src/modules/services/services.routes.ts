import { ServicesAnswer } from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';

/** Which optional services are set up: the installation's, and translation per account (its own model). */
export interface Services {
  translate: (accountId: number) => Promise<boolean>;
  aiHints: boolean;
  mail: boolean;
  analytics: boolean;
}

/** `GET /api/services`: what the web app may offer the caller's account (Translate, AI hints, sending mail). */
export function servicesRoutes(app: FastifyInstance, services: Services): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get('/api/services', { config: { auth: 'user' }, schema: { response: { 200: ServicesAnswer } } }, async (req) => ({
      result: 'success' as const,
      translate: await services.translate(req.auth!.accountId),
      ai_hints: services.aiHints,
      mail: services.mail,
      analytics: services.analytics,
    }));
}
