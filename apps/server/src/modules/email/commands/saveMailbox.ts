import { createPrivateKey } from 'node:crypto';
import { EMAIL_STRINGS, type ForwardingMailboxInput, type Mailbox, type MailboxInput } from '@parley/contracts';
import type { Insertable } from 'kysely';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import { type DB, isUniqueViolation } from '../../../platform/db/db.js';
import type { MailboxesTable } from '../../../platform/db/schema.js';
import { badRequest, conflict, notFound } from '../../../platform/http/errors.js';
import { runCommand, type Trx } from '../../../platform/outbox/index.js';
import { requireWithinPlan } from '../../accounts/index.js';
import { recordAudit } from '../../audit/index.js';
import { findMailbox, type MailboxRow, newInboundToken, toMailbox } from '../mailboxes.queries.js';
import type { Secrets } from '../secrets.js';

/** 409 while the server has no SECRETS_KEY: a password could not be kept encrypted. */
export function requireSecrets(secrets: Secrets | null): Secrets {
  if (!secrets) throw conflict(EMAIL_STRINGS.notConfigured);
  return secrets;
}

export async function checkDepartment(trx: Trx, accountId: number, departmentId: number | null) {
  if (departmentId === null) return;
  const found = await trx
    .selectFrom('departments')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', departmentId)
    .executeTakeFirst();
  if (!found) throw badRequest(EMAIL_STRINGS.unknownDepartment);
}

/** A DKIM key nodemailer can sign with: an RSA private key in PEM, 1024 bits or more; else a 400. */
export function checkDkimKey(pem: string): string {
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey({ key: pem.trim(), format: 'pem' });
  } catch {
    throw badRequest(EMAIL_STRINGS.dkimBadKey);
  }
  if (key.asymmetricKeyType !== 'rsa') throw badRequest(EMAIL_STRINGS.dkimBadKey);
  if ((key.asymmetricKeyDetails?.modulusLength ?? 0) < 1024) throw badRequest(EMAIL_STRINGS.dkimShortKey);
  return `${pem.trim()}\n`;
}

/** An IMAP mailbox, or a forwarding-only one (no IMAP side): both reply by SMTP. */
type SmtpMailboxInput = MailboxInput | ForwardingMailboxInput;

/**
 * The sealed DKIM key to store: none without a selector; a new key checked and sealed; else the stored one,
 * which a selector requires.
 */
function dkimSecretOf(secrets: Secrets, accountId: number, input: SmtpMailboxInput, kept: string): string {
  const key = input.dkimPrivateKey?.trim() ?? '';
  if (!input.dkimSelector) {
    if (key) throw badRequest(EMAIL_STRINGS.dkimSelectorRequired);
    return '';
  }
  if (key) return secrets.seal(accountId, checkDkimKey(key));
  if (!kept) throw badRequest(EMAIL_STRINGS.dkimKeyRequired);
  return kept;
}

/**
 * The columns of the input, passwords sealed; a missing or empty password keeps `keep`'s. A forwarding-only
 * mailbox has no IMAP side (empty, like a Microsoft 365 mailbox's), so no fetcher ever takes it.
 */
function columnsOf(
  secrets: Secrets,
  accountId: number,
  input: SmtpMailboxInput,
  keep: { imap: string; smtp: string; dkim: string } = { imap: '', smtp: '', dkim: '' },
) {
  const imap =
    input.kind === 'forwarding'
      ? { imap_host: '', imap_port: 0, imap_tls: 1, imap_user: '', imap_secret: '' }
      : {
          imap_host: input.imap.host,
          imap_port: input.imap.port,
          imap_tls: input.imap.tls ? 1 : 0,
          imap_user: input.imap.user,
          imap_secret: input.imap.password ? secrets.seal(accountId, input.imap.password) : keep.imap,
        };
  return {
    kind: input.kind === 'forwarding' ? 'forwarding' : 'imap',
    dkim_selector: input.dkimSelector,
    dkim_secret: dkimSecretOf(secrets, accountId, input, keep.dkim),
    address: input.address,
    address_lower: input.address.toLowerCase(),
    name: input.name,
    department_id: input.departmentId,
    active: input.active ? 1 : 0,
    ...imap,
    smtp_host: input.smtp.host,
    smtp_port: input.smtp.port,
    smtp_tls: input.smtp.tls ? 1 : 0,
    smtp_user: input.smtp.user,
    smtp_secret: input.smtp.password ? secrets.seal(accountId, input.smtp.password) : keep.smtp,
  };
}

export async function withAddressGuard<T>(address: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(EMAIL_STRINGS.addressTaken(address));
    throw err;
  }
}

export async function refuseTakenAddress(trx: Trx, accountId: number, address: string, except = 0) {
  const taken = await trx
    .selectFrom('mailboxes')
    .select('id')
    .where('account_id', '=', accountId)
    .where('address_lower', '=', address.toLowerCase())
    .where('id', '!=', except)
    .executeTakeFirst();
  if (taken) throw conflict(EMAIL_STRINGS.addressTaken(address));
}

/** Refuses a new mailbox past the plan's limit (403), the account's row locked so two cannot both pass. */
export async function takePlanPlace(trx: Trx, accountId: number): Promise<void> {
  await requireWithinPlan(trx, accountId, 'mailboxes', async () =>
    Number(
      (
        await trx
          .selectFrom('mailboxes')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', accountId)
          .executeTakeFirst()
      )?.n ?? 0,
    ),
  );
}

/**
 * A new mailbox of the account (admins), within the plan's limit. IMAP: the IMAP password is required.
 * Forwarding only: the server must take forwarded mail (409 otherwise: the mailbox would never get any).
 */
export async function createMailbox(
  db: DB,
  secrets: Secrets | null,
  auth: AuthContext,
  input: SmtpMailboxInput,
  forwardDomain: string | null = null,
): Promise<Mailbox> {
  const box = requireSecrets(secrets);
  if (input.kind === 'forwarding') {
    if (!forwardDomain) throw conflict(EMAIL_STRINGS.forwardingOnlyOff);
  } else if (!input.imap.password) throw badRequest(EMAIL_STRINGS.imapPasswordRequired);
  return withAddressGuard(input.address, () =>
    runCommand(db, async (trx) => {
      const row = await insertMailbox(trx, auth, input, {
        ...columnsOf(box, auth.accountId, input),
        inbound_token: newInboundToken(),
      });
      return toMailbox(row, forwardDomain);
    }),
  );
}

/**
 * A new mailbox row of either kind, within the plan's limit, its department and address checked; audited.
 * The caller runs it in its transaction (with the address guard around it).
 */
export async function insertMailbox(
  trx: Trx,
  auth: AuthContext,
  input: { address: string; departmentId: number | null },
  columns: Omit<Insertable<MailboxesTable>, 'account_id' | 'created_at' | 'updated_at'>,
): Promise<MailboxRow> {
  await takePlanPlace(trx, auth.accountId);
  await checkDepartment(trx, auth.accountId, input.departmentId);
  await refuseTakenAddress(trx, auth.accountId, input.address);
  const at = Date.now();
  const row = await trx
    .insertInto('mailboxes')
    .values({ account_id: auth.accountId, ...columns, created_at: at, updated_at: at })
    .returningAll()
    .executeTakeFirstOrThrow();
  await recordAudit(trx, {
    accountId: auth.accountId,
    userId: auth.userId,
    actor: auth.username,
    action: 'mailbox.created',
    detail: { id: Number(row.id), address: row.address, kind: row.kind },
  });
  return row;
}

/**
 * Changes a mailbox: every field as given, a password only when one is given. Another IMAP server or user is
 * another mailbox: its fetch state starts again (deduplicated by Message-ID, so nothing is stored twice).
 */
export async function updateMailbox(
  db: DB,
  secrets: Secrets | null,
  auth: AuthContext,
  id: number,
  input: SmtpMailboxInput,
  forwardDomain: string | null = null,
): Promise<Mailbox> {
  const box = requireSecrets(secrets);
  const kind = input.kind === 'forwarding' ? 'forwarding' : 'imap';
  return withAddressGuard(input.address, () =>
    runCommand(db, async (trx) => {
      const current = await findMailbox(trx, auth.accountId, id);
      if (!current) throw notFound(EMAIL_STRINGS.notFound);
      if (current.kind === 'graph') throw conflict(EMAIL_STRINGS.kindFixed);
      if (current.kind !== kind) throw conflict(EMAIL_STRINGS.kindFixedForwarding);
      await checkDepartment(trx, auth.accountId, input.departmentId);
      await refuseTakenAddress(trx, auth.accountId, input.address, id);
      const moved =
        input.kind !== 'forwarding' &&
        (current.imap_host !== input.imap.host ||
          Number(current.imap_port) !== input.imap.port ||
          current.imap_user !== input.imap.user);
      const row = await trx
        .updateTable('mailboxes')
        .set({
          ...columnsOf(box, auth.accountId, input, {
            imap: current.imap_secret,
            smtp: current.smtp_secret,
            dkim: current.dkim_secret,
          }),
          ...(moved ? { uid_validity: null, last_uid: 0 } : {}),
          // A change clears the last error: the next fetch tells whether the new settings work.
          last_error: null,
          last_error_at: null,
          updated_at: Math.max(Date.now(), Number(current.updated_at) + 1),
        })
        .where('account_id', '=', auth.accountId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await recordAudit(trx, {
        accountId: auth.accountId,
        userId: auth.userId,
        actor: auth.username,
        action: 'mailbox.updated',
        detail: {
          id,
          address: row.address,
          imapPasswordChanged: input.kind !== 'forwarding' && !!input.imap.password,
          smtpPasswordChanged: !!input.smtp.password,
          dkimKeyChanged: row.dkim_secret !== current.dkim_secret,
        },
      });
      return toMailbox(row, forwardDomain);
    }),
  );
}

/**
 * A new forwarding address for a mailbox (a new token): mail sent to the old address is refused from now
 * on (550 at RCPT), so an address that leaked stops making tickets. Any kind of mailbox; 409 while the
 * server takes no forwarded mail.
 */
export async function renewForwardingAddress(
  db: DB,
  auth: AuthContext,
  id: number,
  forwardDomain: string | null,
): Promise<Mailbox> {
  if (!forwardDomain) throw conflict(EMAIL_STRINGS.forwardingOff);
  return runCommand(db, async (trx) => {
    const current = await findMailbox(trx, auth.accountId, id);
    if (!current) throw notFound(EMAIL_STRINGS.notFound);
    const row = await trx
      .updateTable('mailboxes')
      .set({ inbound_token: newInboundToken(), updated_at: Math.max(Date.now(), Number(current.updated_at) + 1) })
      .where('account_id', '=', auth.accountId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, {
      accountId: auth.accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'mailbox.forwarding_renewed',
      detail: { id, address: row.address },
    });
    return toMailbox(row, forwardDomain);
  });
}

/**
 * Removes a mailbox; its tickets stay. Allowed without SECRETS_KEY (nothing is sealed). Answers the removed
 * row, so what it held outside (a Graph subscription) can be let go.
 */
export async function deleteMailbox(db: DB, auth: AuthContext, id: number): Promise<MailboxRow> {
  return runCommand(db, async (trx) => {
    const done = await trx
      .deleteFrom('mailboxes')
      .where('account_id', '=', auth.accountId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    if (!done) throw notFound(EMAIL_STRINGS.notFound);
    await recordAudit(trx, {
      accountId: auth.accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'mailbox.deleted',
      detail: { id, address: done.address },
    });
    return done;
  });
}
