/** Contacts: one identity across channels; list, page, merge and undo, CSV import and export. */

/** Finds or makes the contact of a new conversation, inside the transaction that creates it. */
export { linkConversation } from './commands/linkConversation.js';
/** HTTP routes of the module. */
export { contactRoutes } from './contacts.routes.js';
/** The canonical form of an address (e-mail lower case, phone E.164). */
export { canonicalIdentifier } from './identifiers.js';
