import { canPublishKb, KB_STRINGS } from '@parley/contracts';
import type { AuthContext } from '../../platform/auth/sessions.js';
import { forbidden } from '../../platform/http/errors.js';

/**
 * Who does what in the knowledge base: every signed-in user (admins, supervisors, agents) reads every
 * article and writes drafts; admins and supervisors publish, unpublish and delete articles and manage
 * categories. Anyone may read published articles through the account's public token.
 */
export function requirePublisher(auth: AuthContext, what: string = KB_STRINGS.publishNotAllowed): void {
  if (!canPublishKb(auth.type)) throw forbidden(what);
}
