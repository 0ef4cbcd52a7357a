import { ServicesAnswer } from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';

/** Which optional services this installation has set up; the same for every account of it. */
export interface Services {
  translate: boolean;
  aiHints: boolean;
  mail: boolean;
  analytics: boolean;
}

/** `GET /api/services`: what the web app may offer (Translate, AI hints, sending mail). */
export function servicesRoutes(app: FastifyInstance, services: Services): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get('/api/services', { config: { auth: 'user' }, schema: { response: { 200: ServicesAnswer } } }, async () => ({
      result: 'success' as const,
      translate: services.translate,
      ai_hints: services.aiHints,
      mail: services.mail,
      analytics: services.analytics,
    }));
}
