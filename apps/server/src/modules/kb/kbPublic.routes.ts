import {
  KB_STRINGS,
  KB_TOKEN_PATTERN,
  KbArticleAnswer,
  type KbLang,
  KbPublicIndexAnswer,
  KbPublicListParams,
  KbPublicParams,
  KbPublicQuery,
  type KbType,
  kbArticlePath,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import { notFound } from '../../platform/http/errors.js';
import { linkBase } from '../auth/index.js';
import { sendUpload } from '../messages/index.js';
import { accountOfToken, publicArticle, publicIndex, publiclyShown, sitemapRows } from './kb.queries.js';

export interface KbPublicDeps {
  db: DB;
  dataDir: string;
  publicUrl?: string;
  hostVariants?: Parameters<typeof linkBase>[1]['hostVariants'];
}

const FileParams = z.object({
  token: z.string().regex(KB_TOKEN_PATTERN, KB_STRINGS.siteNotFound),
  key: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/),
  name: z.string().max(300),
});
const SitemapQuery = z.object({ site: z.string().regex(KB_TOKEN_PATTERN, KB_STRINGS.siteNotFound) });

const xml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

/**
 * The public side, no sign-in: one account's published articles, named by its public token (an unknown
 * token, a draft, another account's article: 404 with nothing else said), their images, and a sitemap.
 */
export function kbPublicRoutes(app: FastifyInstance, deps: KbPublicDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;
  const ok = 'success' as const;
  const pub = { auth: 'public' as const };
  const account = async (token: string) => {
    const id = await accountOfToken(db, token);
    if (id === undefined) throw notFound(KB_STRINGS.siteNotFound);
    return id;
  };

  r.get(
    '/api/public/kb/:token/:type/:lang',
    {
      config: pub,
      schema: { params: KbPublicListParams, querystring: KbPublicQuery, response: { 200: KbPublicIndexAnswer } },
    },
    async (req) => {
      const { token, type, lang } = req.params;
      return { result: ok, ...(await publicIndex(db, await account(token), type, lang, req.query.q)) };
    },
  );
  r.get(
    '/api/public/kb/:token/:type/:lang/:id',
    { config: pub, schema: { params: KbPublicParams, response: { 200: KbArticleAnswer } } },
    async (req) => {
      const { token, type, lang, id } = req.params;
      const a = await publicArticle(db, await account(token), type, lang, id);
      if (!a) throw notFound(KB_STRINGS.articleNotFound);
      return { result: ok, data: a };
    },
  );
  // An image of a published article: only an upload that such an article shows, never any other file.
  r.get(
    '/api/public/kb/:token/files/:key/:name',
    { config: pub, schema: { params: FileParams } },
    async (req, reply) => {
      const accountId = await account(req.params.token);
      if (!(await publiclyShown(db, accountId, req.params.key))) throw notFound('File not found.');
      return sendUpload(db, deps.dataDir, accountId, req.params.key, reply);
    },
  );
  // The sitemap of one account's published articles, beside the pages it lists (`/support/...`).
  r.get('/support/sitemap.xml', { config: pub, schema: { querystring: SitemapQuery } }, async (req, reply) => {
    const token = req.query.site;
    const rows = await sitemapRows(db, await account(token));
    const base = linkBase(req, { publicUrl: deps.publicUrl, hostVariants: deps.hostVariants });
    const urls = rows.map((a) => {
      const path = kbArticlePath(
        { type: a.type as KbType, lang: a.lang as KbLang, id: Number(a.id), slug: a.slug },
        token,
      );
      const lastmod = new Date(Number(a.updated_at)).toISOString();
      return `  <url><loc>${xml(base + path)}</loc><lastmod>${lastmod}</lastmod></url>`;
    });
    return reply
      .type('application/xml; charset=utf-8')
      .send(
        `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}${urls.length ? '\n' : ''}</urlset>\n`,
      );
  });
}
