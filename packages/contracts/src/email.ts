import { z } from 'zod';
import { isEmailAddress } from './messages.js';
import { planEntitlements, planLimitWords } from './plans.js';

/**
 * E-mail mailboxes (issue "E-mail as a real channel"): an account connects its support addresses; mail that
 * reaches them by IMAP becomes tickets. See docs/email.md.
 */

/** Spec table "E-mail accounts" (PLAN-20..23): the mailboxes an account may connect on its plan (null: unlimited). */
export const mailboxLimit = (plan: number): number | null => planEntitlements(plan).mailboxes;

export const EMAIL_STRINGS = {
  notConfigured:
    'E-mail mailboxes need SECRETS_KEY on the server (32 random bytes in base64) to keep their passwords encrypted. Ask your administrator to set it and restart.',
  notFound: 'Mailbox not found.',
  /** A new forwarding address asked for while the server takes no forwarded mail. */
  forwardingOff: 'This server takes no forwarded mail (its inbound SMTP listener is off).',
  /** PLAN-24: the account's plan by name, its limit and the way up. */
  planLimit: (limit: number, plan: number) => planLimitWords('mailboxes', plan, limit),
  addressTaken: (address: string) => `The mailbox ${address} is already connected.`,
  badAddress: (address: string) => `Please check the email address. ${address}`,
  unknownDepartment: 'Unknown department.',
  imapPasswordRequired: 'The IMAP password is required.',
  badPort: 'A port is a whole number from 1 to 65535.',
  hostRequired: 'A server name is required.',
  userRequired: 'A user name is required.',
  /** A password stored under another SECRETS_KEY (the key was changed): it must be entered again. */
  cannotDecrypt: 'The stored password cannot be read with this server\u2019s SECRETS_KEY: enter it again.',
  testOk: 'The server accepted the login.',
  /** The system message of a Resolved or Closed ticket the customer wrote to again. */
  reopened: 'The customer wrote again: the ticket is open again.',
  /** Put under an inbound mail whose attachment was not stored. */
  attachmentNotStored: (name: string, reason: string) => `The attachment ${name} was not stored: ${reason}`,
  noSubject: '(no subject)',
  dkimBadKey: 'The DKIM private key must be an RSA private key in PEM format (-----BEGIN PRIVATE KEY-----).',
  dkimShortKey: 'The DKIM private key must be an RSA key of at least 1024 bits.',
  dkimKeyRequired: 'A DKIM selector needs a private key.',
  dkimSelectorRequired: 'A DKIM private key needs a selector.',
  dkimBadSelector: 'A DKIM selector is letters, digits, dots and dashes (like "parley" or "s1.mail").',
  /** The stored DKIM key does not open with this server's SECRETS_KEY: the reply is not sent unsigned. */
  dkimCannotDecrypt: 'The stored DKIM key cannot be read with this server\u2019s SECRETS_KEY: enter it again.',
  /** A bounce of our reply: why the receiving server refused it (see docs/email.md, "Bounces"). */
  bounced: (reason: string) => `Bounced: ${reason}`,
  bounceNoReason: 'The receiving server returned the mail.',
  graphTenantRequired: 'The directory (tenant) ID is required.',
  graphClientRequired: 'The application (client) ID is required.',
  graphSecretRequired: 'The client secret is required.',
  graphIdShape: 'An ID is letters, digits, dots and dashes (a GUID or a domain such as contoso.onmicrosoft.com).',
  /** A mailbox keeps its kind: IMAP settings and a Microsoft 365 app are different things to connect. */
  kindFixed: 'A mailbox cannot change between IMAP and Microsoft 365: remove it and add it again.',
  /** A forwarding-only mailbox asked to become an IMAP one, or the other way round. */
  kindFixedForwarding:
    'A mailbox cannot change between IMAP and forwarding only: remove it and add it again (its tickets stay).',
  /** A forwarding-only mailbox asked for while the server takes no forwarded mail: it would never get any. */
  forwardingOnlyOff:
    'This server takes no forwarded mail (its inbound SMTP listener is off), so a forwarding-only mailbox would receive nothing. Connect it by IMAP, or ask your administrator to set INBOUND_SMTP_PORT.',
  /** The connection test of a Microsoft 365 mailbox, when Graph knows the user. */
  graphTestOk: (name: string) => `Microsoft Graph accepted the app and knows the mailbox${name ? ` (${name})` : ''}.`,
  /** Said of a Microsoft 365 mailbox when the server has no PUBLIC_URL: Graph cannot notify it. */
  graphNoPublicUrl:
    'PUBLIC_URL is not set, so Microsoft Graph cannot notify this server: new mail is picked up by the poll only.',
} as const;

/**
 * How a mailbox is connected: IMAP and SMTP; forwarding only (mail comes only by forwarding to the inbound
 * SMTP listener, replies by SMTP; no IMAP login); or Microsoft 365 through the Microsoft Graph mail API.
 */
export const MAILBOX_KINDS = ['imap', 'forwarding', 'graph'] as const;
export type MailboxKind = (typeof MAILBOX_KINDS)[number];

const host = z
  .string()
  .trim()
  .min(1, EMAIL_STRINGS.hostRequired)
  .max(253)
  .regex(/^[A-Za-z0-9.:[\]-]+$/, 'A server name is letters, digits, dots and dashes (or an IP address).');
const port = z
  .number({ error: EMAIL_STRINGS.badPort })
  .int(EMAIL_STRINGS.badPort)
  .min(1, EMAIL_STRINGS.badPort)
  .max(65535, EMAIL_STRINGS.badPort);
/** Empty or missing: keep the stored password (a change); required for IMAP when the mailbox is new. */
const password = z.string().max(1000).optional();

export const MailServerInput = z.object({
  host,
  port,
  /** TLS from the first byte (IMAPS 993, SMTPS 465); false: plain, upgraded with STARTTLS when offered. */
  tls: z.boolean(),
  user: z.string().trim().min(1, EMAIL_STRINGS.userRequired).max(320),
  password,
});
export type MailServerInput = z.infer<typeof MailServerInput>;

/** What every kind of mailbox has: its address, sender name, department and whether it is read. */
const mailboxCommon = {
  address: z
    .string()
    .trim()
    .max(320)
    .refine(isEmailAddress, { error: (i) => EMAIL_STRINGS.badAddress(String(i.input)) }),
  /** The name mail from this address goes out under ("Acme Support"). */
  name: z.string().trim().max(200).default(''),
  /** The department new tickets of this mailbox go to; null: none. */
  departmentId: z.number().int().positive().nullable().default(null),
  /** False: kept, but not fetched. */
  active: z.boolean().default(true),
};

/** What a mailbox that replies by SMTP has besides its inbound side: its SMTP server and DKIM. */
const smtpOut = {
  smtp: MailServerInput,
  /** Replies are DKIM-signed under this selector of the address's domain; '' none (the stored key is dropped). */
  dkimSelector: z
    .string()
    .trim()
    .max(63)
    .regex(/^$|^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,61}[A-Za-z0-9])?$/, EMAIL_STRINGS.dkimBadSelector)
    .default(''),
  /** The DKIM private key (PEM); empty or missing keeps the stored one. */
  dkimPrivateKey: z.string().max(20_000).optional(),
};

/** An IMAP mailbox (the kind when none is given). */
export const MailboxInput = z.object({
  kind: z.literal('imap').optional(),
  ...mailboxCommon,
  imap: MailServerInput,
  ...smtpOut,
});
export type MailboxInput = z.infer<typeof MailboxInput>;

/**
 * A forwarding-only mailbox: no IMAP login; its mail comes only by forwarding to its forwarding address (the
 * inbound SMTP listener), its replies leave by its SMTP server.
 */
export const ForwardingMailboxInput = z.object({
  kind: z.literal('forwarding'),
  ...mailboxCommon,
  ...smtpOut,
});
export type ForwardingMailboxInput = z.infer<typeof ForwardingMailboxInput>;

const graphId = (required: string) =>
  z
    .string()
    .trim()
    .min(1, required)
    .max(200)
    .regex(/^[A-Za-z0-9.-]+$/, EMAIL_STRINGS.graphIdShape);

/** The Entra ID app registration a Microsoft 365 mailbox is read and sent with (client-credentials flow). */
export const GraphAppInput = z.object({
  tenantId: graphId(EMAIL_STRINGS.graphTenantRequired),
  clientId: graphId(EMAIL_STRINGS.graphClientRequired),
  /** Empty or missing: keep the stored secret (a change); required when the mailbox is new. */
  clientSecret: z.string().max(1000).optional(),
});
export type GraphAppInput = z.infer<typeof GraphAppInput>;

/** A Microsoft 365 mailbox: `address` is the Graph user whose Inbox is read and who sends the replies. */
export const GraphMailboxInput = z.object({
  kind: z.literal('graph'),
  ...mailboxCommon,
  graph: GraphAppInput,
});
export type GraphMailboxInput = z.infer<typeof GraphMailboxInput>;

/** The body of `POST /api/mailboxes` and `PUT /api/mailboxes/:id`: an IMAP, forwarding-only or Microsoft 365 mailbox. */
export const MailboxBody = z.discriminatedUnion('kind', [MailboxInput, ForwardingMailboxInput, GraphMailboxInput]);
export type MailboxBody = z.infer<typeof MailboxBody>;

/** A mail server as the API shows it: never its password, only whether one is stored. */
export const MailServer = z.object({
  host: z.string(),
  port: z.number(),
  tls: z.boolean(),
  user: z.string(),
  hasPassword: z.boolean(),
});

/** A Microsoft 365 mailbox's app as the API shows it: never its secret, only whether one is stored. */
export const GraphApp = z.object({
  tenantId: z.string(),
  clientId: z.string(),
  hasClientSecret: z.boolean(),
  /** When the Graph subscription that notifies us of new mail expires (ms); null while there is none. */
  subscriptionExpiresAt: z.number().nullable(),
});
export type GraphApp = z.infer<typeof GraphApp>;

export const Mailbox = z.object({
  id: z.number(),
  address: z.string(),
  name: z.string(),
  departmentId: z.number().nullable(),
  active: z.boolean(),
  kind: z.enum(MAILBOX_KINDS),
  /** A Microsoft 365 mailbox's IMAP and SMTP are empty (host ''); a forwarding-only one's IMAP is. */
  imap: MailServer,
  smtp: MailServer,
  /** Set for a Microsoft 365 mailbox, null for an IMAP one. */
  graph: GraphApp.nullable(),
  /** The DKIM selector replies are signed under ('' none), and whether a key is stored (never the key). */
  dkimSelector: z.string(),
  hasDkimKey: z.boolean(),
  /**
   * Where to forward the mailbox's mail (`mbx-<id>-<token>@<domain>`) when the server's inbound SMTP listener
   * is on; null when it is off.
   */
  forwardingAddress: z.string().nullable(),
  /** The fetcher's last error in the server's own words, and when (ms); null since the last good fetch. */
  lastError: z.string().nullable(),
  lastErrorAt: z.number().nullable(),
  /** When mail was last fetched (ms), null before the first time. */
  lastFetchAt: z.number().nullable(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type Mailbox = z.infer<typeof Mailbox>;

export const MailboxIdParams = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

export const MailboxAnswer = z.object({ result: z.literal('success'), data: Mailbox });
export const MailboxListAnswer = z.object({
  result: z.literal('success'),
  /** False: the server has no SECRETS_KEY, so mailboxes cannot be added or changed (nor fetched). */
  configured: z.boolean(),
  /** Set when not configured: what to tell the admin. */
  description: z.string().optional(),
  /** Mailboxes the plan allows; null: unlimited. */
  limit: z.number().nullable(),
  /** Whether the server takes forwarded mail (its inbound SMTP listener is on): forwarding-only mailboxes need it. */
  forwarding: z.boolean(),
  data: z.array(Mailbox),
});
export type MailboxListAnswer = z.infer<typeof MailboxListAnswer>;

/** One side of a connection test: did the login work, and the server's own words. */
export const MailTestResult = z.object({ ok: z.boolean(), response: z.string() });
/** An IMAP mailbox answers `imap` and `smtp`; a Microsoft 365 one answers `graph`. */
export const MailboxTestAnswer = z.object({
  result: z.literal('success'),
  imap: MailTestResult.optional(),
  smtp: MailTestResult.optional(),
  graph: MailTestResult.optional(),
});
export type MailboxTestAnswer = z.infer<typeof MailboxTestAnswer>;

/**
 * A Microsoft Graph change notification as Graph posts it to our notification URL (`resourceData` carries
 * the message's id). Fields Graph adds that we do not use are let through.
 */
export const GraphNotification = z.object({
  subscriptionId: z.string().min(1).max(200),
  clientState: z.string().max(255).optional(),
  changeType: z.string().max(100),
  resource: z.string().max(2000).optional(),
  resourceData: z.object({ id: z.string().min(1).max(1000) }).optional(),
});
export const GraphNotificationBody = z.object({ value: z.array(GraphNotification).max(1000) });
export type GraphNotificationBody = z.infer<typeof GraphNotificationBody>;
export const GraphNotifyQuery = z.object({ validationToken: z.string().max(4000).optional() });
