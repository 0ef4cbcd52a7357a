import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';

const Params = z.object({ token: z.string().min(1).max(100) });

/**
 * The widget's frame loads `/w/livechat/:token`, the light visitor page (its own small build in
 * `dist/w`, no React), under the same CSP as every answer but `frame-ancestors *`. The page reads the token from its path and
 * answers "Invalid link" itself for a bad one, as the React page at `/register/livechat/:token` does.
 */
export function widgetPageRoutes(app: FastifyInstance, deps: { webDist: string }): void {
  const file = path.join(deps.webDist, 'w', 'widget.html');
  app.withTypeProvider<ZodTypeProvider>().get(
    '/w/livechat/:token',
    // Customers' sites frame this page: it is the one route any site may frame (`frameable`).
    { config: { auth: 'public', frameable: true }, schema: { hide: true, params: Params } },
    async (_req, reply) => {
      if (!fs.existsSync(file) || typeof reply.sendFile !== 'function')
        return reply.code(503).type('text/plain').send('The web app is not built yet. Run `npm run build`.');
      return reply
        .type('text/html')
        .header('cache-control', 'no-cache')
        .sendFile('w/widget.html', deps.webDist, { cacheControl: false });
    },
  );
}
