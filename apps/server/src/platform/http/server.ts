import { createHash, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifyMultipart from '@fastify/multipart';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import { ErrorCode, Health, Ready } from '@parley/contracts';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type pino from 'pino';
import { installAuthGuard } from '../auth/guard.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { type DB, pingDatabase } from '../db/db.js';
import type { Metrics } from '../metrics.js';
import { AppError, failure, frameworkError, installErrorHandler } from './errors.js';

export interface HttpDeps {
  config: Config;
  db: DB;
  logger: pino.Logger;
  metrics: Metrics;
  /** The server's clock (the session cache's time). */
  clock?: Clock;
}

const METRICS_REFUSED =
  'Metrics are not public: send METRICS_TOKEN as a Bearer token, or ask from this machine (METRICS_PUBLIC).';

/** Paths that are API, never the web app: an unknown one answers 404 JSON. */
const API_PATH = /^\/(api|status|socket\.io|files)(\/|$)/;

/** True when any string (or key) in a parsed body, query or params holds a NUL character. Iterative: bodies nest deep. */
export function containsNul(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return true;
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k.includes('\u0000')) return true;
        stack.push(x);
      }
    }
  }
  return false;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Any site may frame this page (the live chat widget's page, embedded on customers' sites). */
    frameable?: boolean;
  }
}

/**
 * The Content-Security-Policy of every answer: scripts only from this origin, never inline; framed only
 * by our own pages (a signed-in page framed by another site could be clicked through unseen).
 */
export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "connect-src 'self' ws: wss:",
  "frame-src 'self'",
  "frame-ancestors 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');
/** The same policy for a `frameable` route: any site may frame it. */
export const FRAMEABLE_CSP = CSP.replace("frame-ancestors 'self'", 'frame-ancestors *');
/** A policy whose pages may also frame `origins` (the analytics page of ANALYTICS_URL, REPORT-25). */
export const framing = (csp: string, origins: string[]) =>
  origins.length ? csp.replace("frame-src 'self'", `frame-src 'self' ${origins.join(' ')}`) : csp;

/** HSTS over https: a year, this host only (sibling hosts may not serve https). */
export const HSTS = 'max-age=31536000';

/** Loopback addresses, IPv4 (also as IPv4-mapped IPv6) and IPv6. */
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/**
 * Whether a caller may read `/metrics`: anyone with METRICS_PUBLIC=true; else a Bearer METRICS_TOKEN, or
 * a call from this machine that no proxy forwarded (a reverse proxy on the same host adds X-Forwarded-For
 * or Forwarded, so the public behind it is not taken for a local scraper).
 */
export function metricsAllowed(req: FastifyRequest, config: Pick<Config, 'METRICS_PUBLIC' | 'METRICS_TOKEN'>): boolean {
  if (config.METRICS_PUBLIC) return true;
  const auth = req.headers.authorization;
  if (config.METRICS_TOKEN && auth?.startsWith('Bearer ')) {
    const given = createHash('sha256').update(auth.slice(7).trim()).digest();
    const wanted = createHash('sha256').update(config.METRICS_TOKEN).digest();
    if (timingSafeEqual(given, wanted)) return true;
  }
  const forwarded = req.headers['x-forwarded-for'] !== undefined || req.headers.forwarded !== undefined;
  return !forwarded && LOOPBACK.test(req.socket.remoteAddress ?? '');
}

/** The HTTP pipeline every module's routes plug into: parsing, auth guard, errors, health, static web app. */
export async function createHttp(deps: HttpDeps): Promise<FastifyInstance> {
  const { config, db, metrics } = deps;
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: config.BODY_LIMIT_BYTES,
    trustProxy: config.TRUST_PROXY,
    // maxParamLength: a stored file's name is a path parameter of its URL (`/files/<key>/<name>`, names
    // bounded by NAME_URL_MAX); the default 100 made longer names impossible to download.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 300 },
    frameworkErrors: frameworkError,
    // AI-08 (`GET /api/wauchat/ticket_recommendation`) carries a customer's text of up to 100 kB in its query
    // string: percent-encoded, up to three times that. Node's default of 16 kB would refuse it with a 431.
    http: { maxHeaderSize: 320 * 1024 },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandler(app);
  await app.register(fastifyCookie);
  // Uploads (MSG-35): routes read parts themselves; the limits here are the outer bound of any one call.
  await app.register(fastifyMultipart, {
    limits: { fileSize: 25 * 1024 * 1024, files: 10, fields: 40, fieldSize: 1024 * 1024, parts: 60 },
  });
  // No inline script ever runs in the app (an e-mail body with a <script> stays inert even if a
  // sanitizer missed it). Styles may be inline (the UI library sets style attributes).
  // Framing: our own pages only (CSP frame-ancestors, and X-Frame-Options for browsers without it), but
  // any site for a `frameable` route. Referrer-Policy: other sites learn the origin, never a page's path.
  const framed = config.ANALYTICS_URL ? [new URL(config.ANALYTICS_URL).origin] : [];
  const csp = framing(CSP, framed);
  const frameableCsp = framing(FRAMEABLE_CSP, framed);
  app.addHook('onSend', async (req, reply) => {
    const frameable = req.routeOptions.config?.frameable === true;
    if (!reply.hasHeader('content-security-policy'))
      reply.header('content-security-policy', frameable ? frameableCsp : csp);
    if (!frameable) reply.header('x-frame-options', 'SAMEORIGIN');
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'strict-origin-when-cross-origin');
    // `req.protocol` is https when the connection is, or, with TRUST_PROXY, when X-Forwarded-Proto says so.
    if (req.protocol === 'https') reply.header('strict-transport-security', HSTS);
  });
  await app.register(fastifySwagger, {
    openapi: { info: { title: 'Parley API', version: '0.1.0' } },
    transform: jsonSchemaTransform,
  });
  // A NUL character is never meaningful text and Postgres cannot store it: refuse it as bad input on both
  // dialects alike, before any route reads or writes with it (it was a 500 from the database).
  app.addHook('preValidation', async (req) => {
    if (containsNul(req.body) || containsNul(req.query) || containsNul(req.params))
      throw new AppError(400, ErrorCode.validation, 'Text must not contain NUL characters.');
  });
  installAuthGuard(app, db, config.SESSION_CACHE_MS, deps.clock);

  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    metrics.httpRequests.inc({ method: req.method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ method: req.method, route }, reply.elapsedTime / 1000);
  });

  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get('/healthz', { config: { auth: 'public' }, schema: { response: { 200: Health } } }, async () => ({
    status: 'ok' as const,
  }));
  r.get(
    '/readyz',
    { config: { auth: 'public' }, schema: { response: { 200: Ready, 503: Ready } } },
    async (_req, reply) => {
      const database = await pingDatabase(db);
      return reply.code(database ? 200 : 503).send({ status: database ? 'ready' : 'unavailable', database });
    },
  );
  // The access rule is metricsAllowed's: METRICS_PUBLIC, a Bearer METRICS_TOKEN, or this machine.
  r.get('/metrics', { config: { auth: 'public' } }, async (req, reply) => {
    if (!metricsAllowed(req, config)) throw new AppError(401, ErrorCode.unauthorized, METRICS_REFUSED);
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
  // API_DOCS_PUBLIC=false: the OpenAPI document for admins only.
  r.get(
    '/api/docs',
    { config: { auth: config.API_DOCS_PUBLIC ? 'public' : 'admin' }, schema: { hide: true } },
    async () => app.swagger(),
  );

  const index = path.join(config.WEB_DIST, 'index.html');
  if (fs.existsSync(index)) {
    await app.register(fastifyStatic, { root: config.WEB_DIST, index: false });
    r.get('/', { config: { auth: 'public' }, schema: { hide: true } }, (_req, reply) =>
      reply.type('text/html').header('cache-control', 'no-cache').sendFile('index.html', { cacheControl: false }),
    );
  }
  // Unknown API paths answer JSON; any other path is the web app, which shows its own 404. `/status/` is
  // API too: the spec's online list is `GET /status/get`, outside /api (STATUS-23).
  app.setNotFoundHandler((req, reply) => {
    const url = req.url.split('?')[0] ?? '';
    if (API_PATH.test(url) || req.method !== 'GET') {
      return reply.code(404).send(failure(ErrorCode.notFound, `No such endpoint: ${req.method} ${url}`));
    }
    if (!fs.existsSync(index)) {
      return reply.code(503).type('text/plain').send('The web app is not built yet. Run `npm run build`.');
    }
    return reply.type('text/html').header('cache-control', 'no-cache').sendFile('index.html', { cacheControl: false });
  });
  return app;
}
