import {
  CustomTabAnswer,
  CustomTabQuery,
  FORM_STRINGS,
  FormDef,
  FormInput,
  FormsAnswer,
  OkAnswer,
  PublicFormAnswer,
  PublicSubmitAnswer,
  PublicSubmitBody,
  ReferencesAnswer,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import { IdParams } from '../../platform/http/params.js';
import { takeHits } from '../auth/index.js';
import { listArticles } from '../kb/index.js';
import type { Conversations } from '../messages/index.js';
import { createForm, deleteForm, ensureMainForm, renewFormToken, updateForm } from './commands/saveForm.js';
import { submitForm } from './commands/submitForm.js';
import { customTabs, entriesPage, fieldsOf, formOf, labelsOf, listForms, tabOf, typesOf } from './forms.queries.js';

const TokenParams = z.object({ token: z.string().min(1).max(100) });
const HOUR_MS = 3_600_000;

/** The limits of one public form: per address and form, and per form from everywhere. */
export interface FormLimits {
  perIp: number;
  perForm: number;
}

/**
 * Forms: the entries (CONTACT-01..07) for everyone in the account, the forms themselves for admins, and
 * the public page's two calls (read the form, send it), which need only the form's token.
 */
export function formRoutes(
  app: FastifyInstance,
  deps: { db: DB; conversations: Conversations; limits?: Partial<FormLimits> },
): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db, conversations } = deps;
  const limits: FormLimits = { perIp: 5, perForm: 300, ...deps.limits };
  const ok = 'success' as const;
  const user = { auth: 'user' } as const;
  const admin = { auth: 'admin' } as const;

  r.get('/api/proxy/references', { config: user, schema: { response: { 200: ReferencesAnswer } } }, async (req) => {
    const { accountId } = req.auth!;
    await ensureMainForm(db, accountId);
    const site = await db.selectFrom('kb_sites').select('token').where('account_id', '=', accountId).executeTakeFirst();
    const articles = site ? await listArticles(db, { accountId, status: 'published' }, 200) : [];
    const forms = await db
      .selectFrom('forms')
      .select(['name', 'token'])
      .where('account_id', '=', accountId)
      .where('active', '=', 1)
      .orderBy('main', 'desc')
      .orderBy('id')
      .execute();
    return {
      result: ok,
      references: [
        ...articles.map((a) => ({
          kind: a.type === 'manual' ? ('manual' as const) : ('article' as const),
          title: a.title,
          url: `/support/${a.type}/${a.lang}/${a.slug ?? a.id}?site=${site!.token}`,
        })),
        ...forms.map((f) => ({ kind: 'form' as const, title: f.name, url: `/new_ticket/${f.token}` })),
      ],
    };
  });
  r.get('/api/forms', { config: user, schema: { response: { 200: FormsAnswer } } }, async (req) => {
    const { accountId } = req.auth!;
    const main = await ensureMainForm(db, accountId);
    const page = await entriesPage(db, accountId, main, 0);
    return {
      result: ok,
      ...page,
      main: tabOf(main),
      tabs: await customTabs(db, accountId),
      fields: labelsOf(main),
      types: typesOf(main),
    };
  });
  r.get(
    '/api/contacts/custom',
    { config: user, schema: { querystring: CustomTabQuery, response: { 200: CustomTabAnswer } } },
    async (req) => {
      const { accountId } = req.auth!;
      const form = await formOf(db, accountId, req.query.id);
      const page = await entriesPage(db, accountId, form, req.query.index);
      return { result: ok, ...page, fields: labelsOf(form), types: typesOf(form) };
    },
  );

  r.get(
    '/api/forms/settings',
    {
      config: admin,
      schema: { response: { 200: z.object({ result: z.literal('success'), data: z.array(FormDef) }) } },
    },
    async (req) => {
      await ensureMainForm(db, req.auth!.accountId);
      return { result: ok, data: await listForms(db, req.auth!.accountId) };
    },
  );
  r.post(
    '/api/forms/settings',
    {
      config: admin,
      schema: { body: FormInput, response: { 200: z.object({ result: z.literal('success'), id: z.number() }) } },
    },
    async (req) => ({ result: ok, id: await createForm(db, req.auth!.accountId, req.body) }),
  );
  r.put(
    '/api/forms/settings/:id',
    { config: admin, schema: { params: IdParams, body: FormInput, response: { 200: OkAnswer } } },
    async (req) => {
      await updateForm(db, req.auth!.accountId, req.params.id, req.body);
      return { result: ok };
    },
  );
  r.delete(
    '/api/forms/settings/:id',
    { config: admin, schema: { params: IdParams, response: { 200: OkAnswer } } },
    async (req) => {
      await deleteForm(db, req.auth!.accountId, req.params.id);
      return { result: ok };
    },
  );
  r.post(
    '/api/forms/settings/:id/token',
    {
      config: admin,
      schema: { params: IdParams, response: { 200: z.object({ result: z.literal('success'), token: z.string() }) } },
    },
    async (req) => ({ result: ok, token: await renewFormToken(db, req.auth!.accountId, req.params.id) }),
  );

  /** A form by its public token: 404 for a token nobody has; a form switched off says it is closed. */
  const publicForm = async (token: string) => {
    const f = await db
      .selectFrom('forms')
      .innerJoin('accounts', 'accounts.id', 'forms.account_id')
      .select([
        'forms.id',
        'forms.account_id',
        'forms.name',
        'forms.fields',
        'forms.active',
        'accounts.name as company',
      ])
      .where('forms.token', '=', token)
      .executeTakeFirst();
    if (!f) throw notFound(FORM_STRINGS.notFound);
    if (Number(f.active) !== 1) throw new AppError(410, 'FORM_CLOSED', FORM_STRINGS.closed);
    return f;
  };
  r.get(
    '/api/public/forms/:token',
    { config: { auth: 'public' }, schema: { params: TokenParams, response: { 200: PublicFormAnswer } } },
    async (req) => {
      const f = await publicForm(req.params.token);
      return { result: ok, name: f.name, company: f.company, fields: fieldsOf(f) };
    },
  );
  r.post(
    '/api/public/forms/:token',
    {
      config: { auth: 'public' },
      schema: { params: TokenParams, body: PublicSubmitBody, response: { 200: PublicSubmitAnswer } },
    },
    async (req) => {
      const f = await publicForm(req.params.token);
      // Counted before the answers are read, so probing a form with bad answers is slowed down as well.
      const allowed = await takeHits(db, [
        { key: `form:${f.id}:ip:${req.ip}`, max: limits.perIp, windowMs: HOUR_MS / 6 },
        { key: `form:${f.id}`, max: limits.perForm, windowMs: HOUR_MS },
      ]);
      if (!allowed) throw new AppError(429, 'RATE_LIMITED', FORM_STRINGS.tooMany);
      // A field people never see: whatever filled it is a bot, thanked the same and ignored.
      if (req.body.website) return { result: ok };
      await submitForm(db, conversations, f, req.body.values);
      return { result: ok };
    },
  );
}
