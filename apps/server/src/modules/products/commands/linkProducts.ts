import { type ProductArticle, type ProductRef, PRODUCT_STRINGS as S } from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { lockAccount } from '../../../platform/db/locks.js';
import { badRequest, notFound } from '../../../platform/http/errors.js';
import { runCommand } from '../../../platform/outbox/index.js';
import { productArticles, productRow, ticketProducts, visibleTicket } from '../products.queries.js';

const viewerOf = (auth: AuthContext) => ({ accountId: auth.accountId, userId: auth.userId });

/**
 * Any user who may see the ticket sets the products it is linked to: links missing from `productIds` go,
 * new ones come. A product must be the account's (404 otherwise) and, to be newly linked, in the catalogue
 * (an archived one already linked may stay). Nothing changes when one id is refused.
 */
export function setTicketProducts(
  db: DB,
  auth: AuthContext,
  ticketId: number,
  productIds: number[],
): Promise<ProductRef[]> {
  const wanted = [...new Set(productIds)];
  return runCommand(db, async (trx) => {
    await visibleTicket(trx, viewerOf(auth), ticketId);
    // Two changes of one ticket's links at once take turns (each reads the links the other wrote).
    await lockAccount(trx, auth.accountId);
    const current = new Set(
      (
        await trx
          .selectFrom('product_tickets')
          .select('product_id')
          .where('account_id', '=', auth.accountId)
          .where('ticket_id', '=', ticketId)
          .execute()
      ).map((r) => Number(r.product_id)),
    );
    const added = wanted.filter((id) => !current.has(id));
    const removed = [...current].filter((id) => !wanted.includes(id));
    if (added.length) {
      const found = await trx
        .selectFrom('products')
        .select(['id', 'name', 'active'])
        .where('account_id', '=', auth.accountId)
        .where('id', 'in', added)
        .execute();
      if (found.length !== added.length) throw notFound(S.unknownProduct);
      const archived = found.find((p) => Number(p.active) !== 1);
      if (archived) throw badRequest(S.archivedProduct(archived.name));
      const now = Date.now();
      await trx
        .insertInto('product_tickets')
        .values(
          added.map((product_id) => ({
            account_id: auth.accountId,
            product_id,
            ticket_id: ticketId,
            linked_by: auth.userId,
            linked_at: now,
          })),
        )
        .execute();
    }
    if (removed.length)
      await trx
        .deleteFrom('product_tickets')
        .where('account_id', '=', auth.accountId)
        .where('ticket_id', '=', ticketId)
        .where('product_id', 'in', removed)
        .execute();
    return ticketProducts(trx, viewerOf(auth), ticketId);
  });
}

/**
 * Any user sets the articles linked to a product (every user of the account reads and writes the knowledge
 * base). Each article must be the account's (404 otherwise, nothing changed).
 */
export function setProductArticles(
  db: DB,
  auth: AuthContext,
  productId: number,
  articleIds: number[],
): Promise<ProductArticle[]> {
  const wanted = [...new Set(articleIds)];
  return runCommand(db, async (trx) => {
    await productRow(trx, auth.accountId, productId);
    await lockAccount(trx, auth.accountId);
    if (wanted.length) {
      const found = await trx
        .selectFrom('kb_articles')
        .select('id')
        .where('account_id', '=', auth.accountId)
        .where('id', 'in', wanted)
        .execute();
      if (found.length !== wanted.length) throw notFound(S.unknownArticle);
    }
    const current = new Set(
      (
        await trx
          .selectFrom('product_articles')
          .select('article_id')
          .where('account_id', '=', auth.accountId)
          .where('product_id', '=', productId)
          .execute()
      ).map((r) => Number(r.article_id)),
    );
    const added = wanted.filter((id) => !current.has(id));
    const removed = [...current].filter((id) => !wanted.includes(id));
    const now = Date.now();
    if (added.length)
      await trx
        .insertInto('product_articles')
        .values(
          added.map((article_id) => ({
            account_id: auth.accountId,
            product_id: productId,
            article_id,
            linked_by: auth.userId,
            linked_at: now,
          })),
        )
        .execute();
    if (removed.length)
      await trx
        .deleteFrom('product_articles')
        .where('account_id', '=', auth.accountId)
        .where('product_id', '=', productId)
        .where('article_id', 'in', removed)
        .execute();
    return productArticles(trx, auth.accountId, productId);
  });
}
