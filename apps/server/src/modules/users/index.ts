/** Admin routes for users and account security. */

/** An admin's edit of a user (deactivation ends their sessions). */
export { updateUser } from './commands/updateUser.js';
/** Who reads reports and the supervisory board: admins and users with view_report. */
export { requireViewReport } from './users.policy.js';
/** Read side: users of an account. */
export { getUser, hasPermission, listUsers } from './users.queries.js';
export { usersRoutes } from './users.routes.js';
