import {
  ErrorCode,
  PAY_ERRORS,
  PAYMENT_HISTORY_PAGE,
  PaymentCreateAnswer,
  PaymentCreateInput,
  PaymentHistoryAnswer,
  PaymentHistoryQuery,
  PaymentStatusAnswer,
  PaymentStatusQuery,
  PLAN_NAMES,
  PricingAnswer,
  PricingQuery,
  SeatsInput,
  SubscriptionActionInput,
  SubscriptionAnswer,
  taxPercent,
} from '@parley/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import { clientIp } from '../livechat/index.js';
import { applyStripeEvent } from './commands/applyStripeEvent.js';
import { changeSeats, setCancelAtPeriodEnd, subscriptionInfo } from './commands/changeSubscription.js';
import { createPayment } from './commands/createPayment.js';
import { settlePayment } from './commands/settlePayment.js';
import { countryOf } from './geo.js';
import { priceList } from './pricing.js';
import { type PaymentProvider, sandboxPageOf } from './providers.js';
import type { StripeProvider } from './stripe.js';

export interface BillingDeps {
  db: DB;
  /** The configured provider, or null (PAYMENT_PROVIDER=none): payments answer "Billing information could not be found.". */
  provider: PaymentProvider | null;
  /** The Stripe adapter when it is the provider: its webhook route verifies deliveries with it. */
  stripe?: StripeProvider | null;
  trustProxy: boolean;
}

const RefParams = z.object({ ref: z.string().min(1).max(64) });
const SandboxInput = z.object({ outcome: z.enum(['pay', 'decline']) });
/** The description a declined sandbox payment carries (PAY-14 shows it). */
export const SANDBOX_DECLINED = 'The card was declined (sandbox).';
export const SANDBOX_PAID = 'Paid (sandbox).';

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(reply: FastifyReply, status: number, title: string, body: string) {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title>` +
        '<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#1a1b1e}' +
        'h1{font-size:1.4rem}dl{display:grid;grid-template-columns:auto 1fr;gap:.4rem 1rem}dt{color:#555}' +
        'button{font:inherit;padding:.6rem 1.2rem;margin:.5rem .5rem 0 0;border-radius:6px;border:1px solid #888;cursor:pointer}' +
        '.pay{background:#1c7ed6;color:#fff;border-color:#1c7ed6}' +
        '@media (prefers-color-scheme:dark){body{background:#1a1b1e;color:#e9ecef}dt{color:#adb5bd}}</style></head>' +
        `<body><main>${body}</main></body></html>`,
    );
}

/** PAY: pricing by country, payments and the sandbox provider's page. */
export function billingRoutes(app: FastifyInstance, deps: BillingDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db, provider } = deps;
  const ipOf = (req: FastifyRequest) =>
    clientIp(req.raw.socket.remoteAddress, req.headers['x-forwarded-for'], deps.trustProxy);

  // PAY-23, PAY-24: the price rows of the caller's country (from its address, offline), or of `country`.
  r.get(
    '/api/pricing',
    { config: { auth: 'public' }, schema: { querystring: PricingQuery, response: { 200: PricingAnswer } } },
    async (req) => {
      const country = req.query.country?.toUpperCase() ?? countryOf(ipOf(req));
      return { result: 'success' as const, ...(await priceList(db, country)) };
    },
  );

  // PAY-25: an admin starts a payment; the answer names the popup page.
  r.post(
    '/api/payment/create',
    { config: { auth: 'admin' }, schema: { body: PaymentCreateInput, response: { 200: PaymentCreateAnswer } } },
    async (req) => {
      const a = req.auth!;
      const ip = ipOf(req);
      const { ref, url } = await createPayment(
        db,
        provider,
        { accountId: a.accountId, userId: a.userId, ip, actor: a.username },
        req.body,
        countryOf(ip),
      );
      return { result: 'success' as const, payment_ref: ref, url };
    },
  );

  // PAY-27: a payment's status; another account's ref is not found.
  r.get(
    '/api/payment/status',
    { config: { auth: 'admin' }, schema: { querystring: PaymentStatusQuery, response: { 200: PaymentStatusAnswer } } },
    async (req) => {
      const p = await db
        .selectFrom('payments')
        .select(['status', 'payment_desc'])
        .where('account_id', '=', req.auth!.accountId)
        .where('ref', '=', req.query.ref)
        // Rows of changes and refunds are no payments a dialog waits on.
        .where('status', 'in', ['PENDING', 'FAILED', 'SUCCESS'])
        .executeTakeFirst();
      if (!p) throw notFound('There is no such payment.');
      return {
        result: 'success' as const,
        status: p.status as PaymentStatusAnswer['status'],
        payment_desc: p.payment_desc,
      };
    },
  );

  // Design: the account's payments, newest first, a page at a time (the receipts of billing settings).
  r.get(
    '/api/payment/history',
    {
      config: { auth: 'admin' },
      schema: { querystring: PaymentHistoryQuery, response: { 200: PaymentHistoryAnswer } },
    },
    async (req) => {
      const accountId = req.auth!.accountId;
      const [rows, count] = await Promise.all([
        db
          .selectFrom('payments as p')
          .leftJoin('users as u', (j) => j.onRef('u.id', '=', 'p.user_id').onRef('u.account_id', '=', 'p.account_id'))
          .select([
            'p.ref',
            'p.plan',
            'p.quantity',
            'p.currency',
            'p.price',
            'p.tax',
            'p.total',
            'p.status',
            'p.payment_desc',
            'p.provider',
            'p.created_at',
            'p.settled_at',
            'u.name as by_name',
            'u.username as by_username',
          ])
          .where('p.account_id', '=', accountId)
          .orderBy('p.created_at', 'desc')
          .orderBy('p.id', 'desc')
          .limit(PAYMENT_HISTORY_PAGE)
          .offset(req.query.page * PAYMENT_HISTORY_PAGE)
          .execute(),
        db
          .selectFrom('payments')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', accountId)
          .executeTakeFirstOrThrow(),
      ]);
      return {
        result: 'success' as const,
        total: Number(count.n),
        data: rows.map(({ by_name, by_username, ...p }) => ({
          ...p,
          plan: Number(p.plan),
          quantity: Number(p.quantity),
          created_at: Number(p.created_at),
          settled_at: p.settled_at === null ? null : Number(p.settled_at),
          status: p.status as PaymentHistoryAnswer['data'][number]['status'],
          by: by_name || by_username || '',
        })),
      };
    },
  );

  // Design: the running subscription (billing, under the plan cards), and its changes by an admin.
  r.get(
    '/api/payment/subscription',
    { config: { auth: 'admin' }, schema: { response: { 200: SubscriptionAnswer } } },
    async (req) => ({ result: 'success' as const, data: await subscriptionInfo(db, req.auth!.accountId) }),
  );
  const who = (req: FastifyRequest) => {
    const a = req.auth!;
    return { accountId: a.accountId, userId: a.userId, actor: a.username, ip: ipOf(req) };
  };
  r.post(
    '/api/payment/seats',
    { config: { auth: 'admin' }, schema: { body: SeatsInput, response: { 200: SubscriptionAnswer } } },
    async (req) => ({ result: 'success' as const, data: await changeSeats(db, provider, who(req), req.body) }),
  );
  r.post(
    '/api/payment/cancel',
    { config: { auth: 'admin' }, schema: { body: SubscriptionActionInput, response: { 200: SubscriptionAnswer } } },
    async (req) => ({ result: 'success' as const, data: await setCancelAtPeriodEnd(db, provider, who(req), true) }),
  );
  r.post(
    '/api/payment/resume',
    { config: { auth: 'admin' }, schema: { body: SubscriptionActionInput, response: { 200: SubscriptionAnswer } } },
    async (req) => ({ result: 'success' as const, data: await setCancelAtPeriodEnd(db, provider, who(req), false) }),
  );

  const sandboxPayment = async (req: FastifyRequest, ref: string) => {
    if (provider?.name !== 'sandbox') throw notFound();
    const p = await db
      .selectFrom('payments')
      .selectAll()
      .where('account_id', '=', req.auth!.accountId)
      .where('ref', '=', ref)
      .where('provider', '=', 'sandbox')
      .executeTakeFirst();
    if (!p) throw notFound('There is no such payment.');
    return p;
  };

  // PAY-26: the sandbox's payment page, opened in the popup (same origin, so the session cookie signs it in).
  r.get(
    '/api/payment/sandbox/:ref',
    { config: { auth: 'admin' }, schema: { params: RefParams, hide: true } },
    async (req, reply) => {
      const p = await sandboxPayment(req, req.params.ref);
      if (p.status !== 'PENDING')
        return page(reply, 409, 'Payment', `<h1>${esc(PAY_ERRORS.settled)}</h1><p>You can close this window.</p>`);
      const action = esc(sandboxPageOf(p.ref));
      return page(
        reply,
        200,
        'Sandbox payment',
        `<h1>Sandbox payment</h1><p>No money moves: this page stands in for a payment provider.</p><dl>` +
          `<dt>Plan</dt><dd>${esc(PLAN_NAMES[Number(p.plan)] ?? String(p.plan))}</dd>` +
          `<dt>Users</dt><dd>${Number(p.quantity)}</dd>` +
          `<dt>Price</dt><dd>${esc(p.currency)} ${esc(p.price)} per user per month</dd>` +
          `<dt>Sales and Service Tax</dt><dd>${esc(taxPercent(p.tax))}%</dd>` +
          `<dt>Total</dt><dd>${esc(p.currency)} ${esc(p.total)}</dd></dl>` +
          `<form method="post" action="${action}"><input type="hidden" name="outcome" value="pay">` +
          `<button class="pay" type="submit">Pay ${esc(p.currency)} ${esc(p.total)}</button></form>` +
          `<form method="post" action="${action}"><input type="hidden" name="outcome" value="decline">` +
          `<button type="submit">Decline</button></form>`,
      );
    },
  );

  // Where a provider's payment page sends the popup when it is done: the dialog reads the status itself.
  r.get('/api/payment/done', { config: { auth: 'public' }, schema: { hide: true } }, async (_req, reply) =>
    page(reply, 200, 'Payment', '<h1>Payment</h1><p>You can close this window.</p>'),
  );

  // Stripe's webhook: the raw body is verified with the signing secret before anything is read from it.
  app.register(async (child) => {
    child.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    child.post('/api/payment/webhook/stripe', { config: { auth: 'public' }, schema: { hide: true } }, async (req) => {
      if (!deps.stripe) throw notFound();
      let event: ReturnType<StripeProvider['verify']>;
      try {
        const sig = req.headers['stripe-signature'];
        event = deps.stripe.verify(String(req.body ?? ''), Array.isArray(sig) ? sig[0] : sig);
      } catch {
        throw new AppError(400, ErrorCode.badSignature, PAY_ERRORS.badSignature);
      }
      const stripe = deps.stripe;
      await applyStripeEvent(db, event, { cancelSubscription: (id) => stripe.cancelSubscription(id) });
      return { received: true };
    });
  });

  // The sandbox page's buttons (form posts, so parsed here only). A settled payment stays as it is.
  app.register(async (child) => {
    child.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });
    child
      .withTypeProvider<ZodTypeProvider>()
      .post(
        '/api/payment/sandbox/:ref',
        { config: { auth: 'admin' }, schema: { params: RefParams, body: SandboxInput, hide: true } },
        async (req, reply) => {
          const p = await sandboxPayment(req, req.params.ref);
          const paid = req.body.outcome === 'pay';
          const r = await settlePayment(db, {
            ref: p.ref,
            accountId: req.auth!.accountId,
            outcome: paid ? 'SUCCESS' : 'FAILED',
            desc: paid ? SANDBOX_PAID : SANDBOX_DECLINED,
            actor: req.auth!.username,
            ip: ipOf(req),
          });
          if (!r.settled)
            return page(reply, 409, 'Payment', `<h1>${esc(PAY_ERRORS.settled)}</h1><p>You can close this window.</p>`);
          return page(
            reply,
            200,
            'Payment',
            `<h1>${paid ? 'Payment received' : 'Payment declined'}</h1><p>You can close this window.</p>`,
          );
        },
      );
  });
}
