import type { AiFeedbackBody } from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { badRequest, notFound } from '../../../platform/http/errors.js';
import { runCommand } from '../../../platform/outbox/index.js';
import type { Conversations } from '../../messages/index.js';
import { readableMessage } from './readableMessage.js';

/**
 * A use or a dismissal of a suggestion about a message: the message must be one of the caller's account in a
 * conversation they may read (else 404, nothing written); a "what to say" verdict names its source, an
 * article or a message of the same account (else 400 / 404). One row per message, agent, kind and source:
 * saying it again replaces the verdict, so one agent cannot push a source up or down by repeating a click.
 */
export async function recordFeedback(
  db: DB,
  conversations: Conversations,
  auth: AuthContext,
  body: AiFeedbackBody,
): Promise<void> {
  await readableMessage(db, conversations, auth, body.messageId);
  if (body.kind === 'what_to_say' && !body.source) throw badRequest('A "what to say" verdict names its source.');
  const source = body.source;
  if (source) {
    const found =
      source.kind === 'article'
        ? await db
            .selectFrom('kb_articles')
            .select('id')
            .where('account_id', '=', auth.accountId)
            .where('id', '=', source.id)
            .executeTakeFirst()
        : await db
            .selectFrom('messages')
            .select('id')
            .where('account_id', '=', auth.accountId)
            .where('id', '=', source.id)
            .executeTakeFirst();
    if (!found) throw notFound('Source not found.');
  }
  const row = {
    account_id: auth.accountId,
    message_id: body.messageId,
    user_id: auth.userId,
    kind: body.kind,
    verdict: body.verdict,
    source_kind: source?.kind ?? '',
    source_id: source?.id ?? 0,
    created_at: Date.now(),
  };
  await runCommand(db, (trx) =>
    trx
      .insertInto('ai_feedback')
      .values(row)
      .onConflict((oc) =>
        oc
          .columns(['account_id', 'message_id', 'user_id', 'kind', 'source_kind', 'source_id'])
          .doUpdateSet({ verdict: row.verdict, created_at: row.created_at }),
      )
      .execute(),
  );
}
