/** Canned replies and macros for agents (beyond the spec; see docs/replies.md). */

/** Runs a macro on tickets in one transaction through the ticket and message commands. */
export { runMacro } from './commands/runMacro.js';
/** Canned replies: create, change, delete (personal, or shared by admins); the variable check. */
export { checkVariables, createCannedReply, deleteCannedReply, updateCannedReply } from './commands/saveCannedReply.js';
/** Macros: create, change, delete (admins), and the check of what a macro names. */
export { checkMacroActions, createMacro, deleteMacro, updateMacro } from './commands/saveMacro.js';
/** One macro action on one ticket through the ticket and message commands (macros and automation rules). */
export {
  type ActionBy,
  applyTicketAction,
  assigneesOf,
  labelsOf,
  replyBlocked,
  type TicketState,
} from './commands/ticketActions.js';
/** Undoes the user's last macro run (replies sent stay). */
export { undoMacroRun } from './commands/undoMacroRun.js';
/** Read side: the canned replies a user may use, the account's macros. */
export { listCannedReplies, listMacros } from './replies.queries.js';
/** HTTP routes of the module. */
export { replyRoutes } from './replies.routes.js';
