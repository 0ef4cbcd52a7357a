/** Contacts: one identity across channels; list, page, merge and undo, CSV import and export. */

/** `/customer_analysis`: the period's customers, what they wrote about and how they felt. */
export { customerAnalysisRoutes } from './analysis.routes.js';
/** Finds or makes the contact of a new conversation, inside the transaction that creates it. */
export { linkConversation } from './commands/linkConversation.js';
/** Read side: contacts found by a keyword (global search's Contact group). */
export { findContacts } from './contacts.queries.js';
/** HTTP routes of the module; whether a user may see contacts at all (hide_contacts). */
export { contactRoutes, contactsVisibleTo } from './contacts.routes.js';
/** The canonical form of an address (e-mail lower case, phone E.164). */
export { canonicalIdentifier } from './identifiers.js';
