/** E-mail in: mailboxes per account, their IMAP fetchers and Microsoft 365 through Graph (see docs/email.md). */

/** Bounces of our replies: what a bounce names and why it came back. */
export { type Bounce, bounceOf } from './bounces.js';
/** A bounce naming one of our replies marks that reply failed. */
export { recordBounce } from './commands/recordBounce.js';
export { retryMailboxReply } from './commands/retryMailboxReply.js';
/** Mailboxes: create, change, remove (admins), and the 409 without SECRETS_KEY. */
export { createGraphMailbox, updateGraphMailbox } from './commands/saveGraphMailbox.js';
export { createMailbox, deleteMailbox, requireSecrets, updateMailbox } from './commands/saveMailbox.js';
/** E-mail out: a mailbox reply sent after commit with retries, its retry by hand, the crash sweep. */
export {
  EMAIL_INTERRUPTED_MS,
  EMAIL_SEND_TRIES,
  failInterruptedEmails,
  sendMailboxReplies,
  sendMailboxReply,
} from './commands/sendMailboxReply.js';
/** Stores one fetched mail exactly once: threading, a new or reopened ticket, its message and Message-ID. */
export { type MailboxRef, type MailFence, StaleFetch, storeMail, threadOf } from './commands/storeMail.js';
/** Tries a mailbox's IMAP and SMTP logins, or a Microsoft 365 mailbox's app and user. */
export { testMailbox } from './connectionTest.js';
/** HTTP routes of the module. */
export { emailRoutes } from './email.routes.js';
/** The node's mailbox fetchers, started and stopped with the app's background work. */
export { EmailFetchers } from './fetcher.js';
/** Microsoft Graph's notification route (public; the validation handshake and change notifications). */
export { graphRoutes } from './graph.routes.js';
/** Microsoft Graph for the node: app tokens (cached) and requests with Graph's error words. */
export { GraphClient, GraphError } from './graphClient.js';
/** Notified Microsoft 365 messages fetched and stored by the relay. */
export { fetchGraphMessages } from './graphInbound.js';
/** Microsoft 365 mailboxes' subscriptions and delta poll. */
export { GraphSync, syncGraphMailbox } from './graphSync.js';
/** The inbound SMTP listener for forwarded mail (INBOUND_SMTP_PORT), started with the background work. */
export { InboundSmtp } from './inbound.js';
/** Read side: the account's mailboxes as the API shows them, and the plan's limit. */
export { accountMailboxLimit, listMailboxes } from './mailboxes.queries.js';
/** Parsing a raw mail: its ids, parties, body, attachments and whether it is an automatic one. */
export { type InboundMail, parseMail } from './parseMail.js';
/** Secrets sealed with SECRETS_KEY (AES-256-GCM). */
export { Secrets } from './secrets.js';
/** Threading of our replies: Message-ID, In-Reply-To, References, the `[#N]` subject. */
export { outMessageId, taggedSubject, threadHeaders } from './threading.js';
