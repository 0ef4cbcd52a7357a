import {
  type CannedReply,
  type CannedReplyInput,
  ErrorCode,
  REPLY_STRINGS,
  unknownReplyVariable,
} from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import { type DB, isUniqueViolation } from '../../../platform/db/db.js';
import { AppError, conflict, forbidden, notFound } from '../../../platform/http/errors.js';
import { appendEvent, runCommand, type Trx } from '../../../platform/outbox/index.js';
import { toCannedReply } from '../replies.queries.js';

const isAdmin = (auth: AuthContext) => auth.type === 'admin';

/** An unknown `{{variable}}` is a 400 naming it, before anything is written. */
export function checkVariables(text: string): void {
  const unknown = unknownReplyVariable(text);
  if (unknown !== null) throw new AppError(400, ErrorCode.validation, REPLY_STRINGS.unknownVariable(unknown));
}

/** The reply the user may change: their own or (admins) a shared one; another's personal one is not found. */
async function editable(trx: Trx, auth: AuthContext, id: number) {
  const row = await trx
    .selectFrom('canned_replies')
    .select(['id', 'owner_id'])
    .where('account_id', '=', auth.accountId)
    .where('id', '=', id)
    .where('owner_id', 'in', [0, auth.userId])
    .executeTakeFirst();
  if (!row) throw notFound(REPLY_STRINGS.notFound);
  if (Number(row.owner_id) === 0 && !isAdmin(auth)) throw forbidden(REPLY_STRINGS.sharedAdminOnly);
  return row;
}

async function refuseTakenShortcut(trx: Trx, accountId: number, ownerId: number, shortcut: string, except = 0) {
  const taken = await trx
    .selectFrom('canned_replies')
    .select('id')
    .where('account_id', '=', accountId)
    .where('owner_id', '=', ownerId)
    .where('shortcut_lower', '=', shortcut.toLowerCase())
    .where('id', '!=', except)
    .executeTakeFirst();
  if (taken) throw conflict(REPLY_STRINGS.shortcutTaken(shortcut));
}

/** Two saves of one shortcut at once: the unique index refuses the second, with the same words. */
async function withShortcutGuard<T>(shortcut: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(REPLY_STRINGS.shortcutTaken(shortcut));
    throw err;
  }
}

/**
 * A new canned reply: personal, or shared (admins only). The text's variables must all be known and the
 * shortcut free within its scope (the shared replies, or the user's own).
 */
export async function createCannedReply(db: DB, auth: AuthContext, input: CannedReplyInput): Promise<CannedReply> {
  if (input.shared && !isAdmin(auth)) throw forbidden(REPLY_STRINGS.sharedAdminOnly);
  checkVariables(input.body);
  const ownerId = input.shared ? 0 : auth.userId;
  return withShortcutGuard(input.shortcut, () =>
    runCommand(db, async (trx) => {
      await refuseTakenShortcut(trx, auth.accountId, ownerId, input.shortcut);
      const at = Date.now();
      const row = await trx
        .insertInto('canned_replies')
        .values({
          account_id: auth.accountId,
          owner_id: ownerId,
          title: input.title,
          shortcut: input.shortcut,
          shortcut_lower: input.shortcut.toLowerCase(),
          body: input.body,
          channels: JSON.stringify([...new Set(input.channels)]),
          created_by: auth.userId,
          created_at: at,
          updated_at: at,
        })
        .returning(['id', 'owner_id', 'title', 'shortcut', 'body', 'channels', 'updated_at'])
        .executeTakeFirstOrThrow();
      const reply = toCannedReply(row);
      await appendEvent(trx, {
        accountId: auth.accountId,
        type: 'canned_reply.created',
        payload: { id: reply.id, by: auth.userId, shared: reply.shared },
      });
      return reply;
    }),
  );
}

/** Changes a canned reply; making one shared or personal again is an admin's. */
export async function updateCannedReply(
  db: DB,
  auth: AuthContext,
  id: number,
  input: CannedReplyInput,
): Promise<CannedReply> {
  checkVariables(input.body);
  return withShortcutGuard(input.shortcut, () =>
    runCommand(db, async (trx) => {
      const row = await editable(trx, auth, id);
      const wasShared = Number(row.owner_id) === 0;
      if (input.shared !== wasShared && !isAdmin(auth)) throw forbidden(REPLY_STRINGS.sharedAdminOnly);
      const ownerId = input.shared ? 0 : wasShared ? auth.userId : Number(row.owner_id);
      await refuseTakenShortcut(trx, auth.accountId, ownerId, input.shortcut, id);
      const updated = await trx
        .updateTable('canned_replies')
        .set({
          owner_id: ownerId,
          title: input.title,
          shortcut: input.shortcut,
          shortcut_lower: input.shortcut.toLowerCase(),
          body: input.body,
          channels: JSON.stringify([...new Set(input.channels)]),
          updated_at: Date.now(),
        })
        .where('account_id', '=', auth.accountId)
        .where('id', '=', id)
        .returning(['id', 'owner_id', 'title', 'shortcut', 'body', 'channels', 'updated_at'])
        .executeTakeFirstOrThrow();
      const reply = toCannedReply(updated);
      await appendEvent(trx, {
        accountId: auth.accountId,
        type: 'canned_reply.updated',
        payload: { id, by: auth.userId, shared: reply.shared },
      });
      return reply;
    }),
  );
}

export async function deleteCannedReply(db: DB, auth: AuthContext, id: number): Promise<void> {
  await runCommand(db, async (trx) => {
    await editable(trx, auth, id);
    await trx.deleteFrom('canned_replies').where('account_id', '=', auth.accountId).where('id', '=', id).execute();
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: 'canned_reply.deleted',
      payload: { id, by: auth.userId },
    });
  });
}
