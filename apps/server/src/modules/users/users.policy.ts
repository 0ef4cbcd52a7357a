import type { AuthContext } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import { forbidden } from '../../platform/http/errors.js';
import { hasPermission } from './users.queries.js';

/**
 * REPORT-01: admins, and users with the view_report permission (supervisors have it by default), read
 * reports and the supervisory board; anyone else is refused with `message` (403). The permission is read
 * from the user's row, so an admin's change applies at the next call.
 */
export async function requireViewReport(db: DB, auth: AuthContext, message: string): Promise<void> {
  if (auth.type === 'admin') return;
  if (!(await hasPermission(db, auth, 'view_report'))) throw forbidden(message);
}
