/** Writes an audit entry. */

/** `GET /api/audit` for admins. */
export { auditRoutes } from './audit.routes.js';
export type { AuditAction, AuditEntry } from './recordAudit.js';
export { recordAudit } from './recordAudit.js';
