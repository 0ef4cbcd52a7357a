import {
  EMAIL_STRINGS,
  type Mailbox,
  type MailboxBody,
  type MailboxInput,
  type MailboxKind,
  type MailServerInput,
} from '@parley/contracts';

/** One mail server in the form: the password typed now ('' keeps the stored one), and whether one is stored. */
export interface ServerDraft {
  host: string;
  port: number | '';
  tls: boolean;
  user: string;
  password: string;
  hasPassword: boolean;
}

/** A Microsoft 365 mailbox's app in the form: the secret typed now ('' keeps the stored one). */
export interface GraphDraft {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  hasClientSecret: boolean;
}

/** A mailbox in the form: a new one has no id yet. */
export interface MailboxDraft {
  id?: number;
  kind: MailboxKind;
  address: string;
  name: string;
  departmentId: number | null;
  active: boolean;
  imap: ServerDraft;
  smtp: ServerDraft;
  graph: GraphDraft;
  /** DKIM: the selector ('' none) and a key typed now ('' keeps the stored one). */
  dkimSelector: string;
  dkimPrivateKey: string;
  hasDkimKey: boolean;
}

export type ServerKind = 'imap' | 'smtp';

/** The usual ports: with TLS from the first byte (IMAPS, SMTPS) and without (STARTTLS). */
const PORTS: Record<ServerKind, { tls: number; plain: number }> = {
  imap: { tls: 993, plain: 143 },
  smtp: { tls: 465, plain: 587 },
};

const blankServer = (kind: ServerKind): ServerDraft => ({
  host: '',
  port: PORTS[kind].tls,
  tls: true,
  user: '',
  password: '',
  hasPassword: false,
});

const blankGraph = (): GraphDraft => ({ tenantId: '', clientId: '', clientSecret: '', hasClientSecret: false });

export const blankMailbox = (): MailboxDraft => ({
  kind: 'imap',
  address: '',
  name: '',
  departmentId: null,
  active: true,
  imap: blankServer('imap'),
  smtp: blankServer('smtp'),
  graph: blankGraph(),
  dkimSelector: '',
  dkimPrivateKey: '',
  hasDkimKey: false,
});

/** A stored mailbox in the form: its passwords are never known here, only whether they are stored. */
export const draftOf = (m: Mailbox): MailboxDraft => ({
  id: m.id,
  kind: m.kind,
  address: m.address,
  name: m.name,
  departmentId: m.departmentId,
  active: m.active,
  // A Microsoft 365 mailbox's empty IMAP/SMTP are not shown; should it ever become IMAP, it starts blank.
  imap: m.kind === 'imap' ? { ...m.imap, password: '' } : blankServer('imap'),
  smtp: m.kind === 'graph' ? blankServer('smtp') : { ...m.smtp, password: '' },
  graph: m.graph
    ? {
        tenantId: m.graph.tenantId,
        clientId: m.graph.clientId,
        clientSecret: '',
        hasClientSecret: m.graph.hasClientSecret,
      }
    : blankGraph(),
  dkimSelector: m.dkimSelector,
  dkimPrivateKey: '',
  hasDkimKey: m.hasDkimKey,
});

/**
 * TLS switched: a port still at the other mode's usual number follows to this mode's (993 and 143, 465 and
 * 587); a port the admin typed stays.
 */
export function withTls(kind: ServerKind, s: ServerDraft, tls: boolean): ServerDraft {
  const p = PORTS[kind];
  const port = s.port === (tls ? p.plain : p.tls) ? (tls ? p.tls : p.plain) : s.port;
  return { ...s, tls, port };
}

const validPort = (port: number | '') => Number.isInteger(port) && (port as number) >= 1 && (port as number) <= 65535;

/**
 * The request body of a draft, or the check it fails first. An empty password (or client secret) is not
 * sent, so a change keeps the stored one (the server keeps it for a missing one; the form never holds it).
 * A Microsoft 365 mailbox sends its app instead of the two servers.
 */
export function mailboxBody(d: MailboxDraft): { body: MailboxBody } | { error: string } {
  if (d.kind === 'graph')
    return {
      body: {
        kind: 'graph',
        address: d.address.trim(),
        name: d.name.trim(),
        departmentId: d.departmentId,
        active: d.active,
        graph: {
          tenantId: d.graph.tenantId.trim(),
          clientId: d.graph.clientId.trim(),
          ...(d.graph.clientSecret === '' ? {} : { clientSecret: d.graph.clientSecret }),
        },
      },
    };
  const server = (s: ServerDraft): MailServerInput => ({
    host: s.host.trim(),
    port: s.port as number,
    tls: s.tls,
    user: s.user.trim(),
    ...(s.password === '' ? {} : { password: s.password }),
  });
  const common = {
    address: d.address.trim(),
    name: d.name.trim(),
    departmentId: d.departmentId,
    active: d.active,
    smtp: server(d.smtp),
    dkimSelector: d.dkimSelector.trim(),
    ...(d.dkimPrivateKey.trim() === '' ? {} : { dkimPrivateKey: d.dkimPrivateKey.trim() }),
  };
  // Forwarding only: no IMAP side at all (what the IMAP fields may still hold is not sent).
  if (d.kind === 'forwarding') {
    if (!validPort(d.smtp.port)) return { error: EMAIL_STRINGS.badPort };
    return { body: { kind: 'forwarding', ...common } };
  }
  if (!validPort(d.imap.port) || !validPort(d.smtp.port)) return { error: EMAIL_STRINGS.badPort };
  return { body: { ...common, imap: server(d.imap) } };
}

/**
 * A stored mailbox's body with only `active` changed (the list's switch): no password or secret, so the
 * stored ones are kept.
 */
export function activeBody(m: Mailbox, active: boolean): MailboxBody {
  if (m.kind === 'graph')
    return {
      kind: 'graph',
      address: m.address,
      name: m.name,
      departmentId: m.departmentId,
      active,
      graph: { tenantId: m.graph?.tenantId ?? '', clientId: m.graph?.clientId ?? '' },
    };
  const server = (s: Mailbox['imap']): MailServerInput => ({ host: s.host, port: s.port, tls: s.tls, user: s.user });
  if (m.kind === 'forwarding')
    return {
      kind: 'forwarding',
      address: m.address,
      name: m.name,
      departmentId: m.departmentId,
      active,
      smtp: server(m.smtp),
      dkimSelector: m.dkimSelector,
    };
  const body: MailboxInput = {
    address: m.address,
    name: m.name,
    departmentId: m.departmentId,
    active,
    imap: server(m.imap),
    smtp: server(m.smtp),
    // No key sent: the stored one is kept.
    dkimSelector: m.dkimSelector,
  };
  return body;
}

/** "imap.acme.test:993, TLS" : a server in one line of the list. */
export const serverSummary = (s: { host: string; port: number; tls: boolean }) =>
  `${s.host}:${s.port}${s.tls ? ', TLS' : ''}`;
