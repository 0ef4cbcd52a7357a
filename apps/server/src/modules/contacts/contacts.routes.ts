import {
  CHANNELS,
  CONTACT_CSV_COLUMNS,
  CONTACT_LIMITS,
  CONTACT_STRINGS,
  ContactAnswer,
  ContactFields,
  ContactIdParams,
  ContactListAnswer,
  ContactListQuery,
  CreateContactBody,
  CreatedContactAnswer,
  csvField,
  IdentifierIdParams,
  IdentifierInput,
  ImportAnswer,
  ImportBody,
  MergeAnswer,
  MergeBody,
  OkAnswer,
  WORKSPACE_CHANNEL,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AuthContext } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import { forbidden, notFound } from '../../platform/http/errors.js';
import { RowId } from '../../platform/http/params.js';
import type { Conversations } from '../messages/index.js';
import { hasPermission } from '../users/index.js';
import { importContacts } from './commands/importContacts.js';
import { mergeContacts, undoMerge } from './commands/mergeContacts.js';
import { addIdentifier, createContact, removeIdentifier, updateContact } from './commands/saveContact.js';
import { allContacts, contactDetail, listContacts } from './contacts.queries.js';

/** NAV: contacts are hidden from non-admins who have the hide_contacts permission, on the API too. */
export async function contactsVisibleTo(db: DB, auth: AuthContext): Promise<boolean> {
  return auth.type === 'admin' || !(await hasPermission(db, auth, 'hide_contacts'));
}
async function assertContacts(db: DB, auth: AuthContext): Promise<void> {
  if (!(await contactsVisibleTo(db, auth))) throw forbidden(CONTACT_STRINGS.hidden);
}

const MergeIdParams = z.object({ mergeId: RowId });

/** The contacts list, a contact's page, edits, addresses, merge and undo, CSV import and export. */
export function contactRoutes(app: FastifyInstance, deps: { db: DB; conversations: Conversations }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db, conversations } = deps;
  const ok = 'success' as const;
  const user = { auth: 'user' } as const;
  const readable = Object.keys(CHANNELS).filter((c) => c !== WORKSPACE_CHANNEL && conversations.covers(c));

  r.get(
    '/api/contacts/list',
    { config: user, schema: { querystring: ContactListQuery, response: { 200: ContactListAnswer } } },
    async (req) => {
      await assertContacts(db, req.auth!);
      const keyword = req.query.keyword || req.query.searchBar;
      return { result: ok, ...(await listContacts(db, req.auth!.accountId, { ...req.query, keyword })) };
    },
  );
  r.get('/api/contacts/export', { config: user, schema: { querystring: z.object({}) } }, async (req, reply) => {
    await assertContacts(db, req.auth!);
    const lines = [CONTACT_CSV_COLUMNS.join(',')];
    for await (const c of allContacts(db, req.auth!.accountId))
      lines.push(CONTACT_CSV_COLUMNS.map((k) => csvField(String(c[k] ?? ''))).join(','));
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="contacts.csv"')
      .send(`\uFEFF${lines.join('\r\n')}\r\n`);
  });
  r.post(
    '/api/contacts/import',
    {
      config: user,
      bodyLimit: CONTACT_LIMITS.importBytes * 2,
      schema: { body: ImportBody, response: { 200: ImportAnswer } },
    },
    async (req) => {
      await assertContacts(db, req.auth!);
      return { result: ok, ...(await importContacts(db, req.auth!, req.body.csv, req.body.dry_run)) };
    },
  );
  r.post(
    '/api/contacts',
    { config: user, schema: { body: CreateContactBody, response: { 200: CreatedContactAnswer } } },
    async (req) => {
      await assertContacts(db, req.auth!);
      return { result: ok, id: await createContact(db, req.auth!, req.body) };
    },
  );
  r.get(
    '/api/contacts/:id',
    { config: user, schema: { params: ContactIdParams, response: { 200: ContactAnswer } } },
    async (req) => {
      await assertContacts(db, req.auth!);
      const contact = await contactDetail(db, req.auth!.accountId, req.params.id, readable);
      if (!contact) throw notFound(CONTACT_STRINGS.notFound);
      return { result: ok, contact };
    },
  );
  r.put(
    '/api/contacts/:id',
    { config: user, schema: { params: ContactIdParams, body: ContactFields, response: { 200: OkAnswer } } },
    async (req) => {
      await assertContacts(db, req.auth!);
      await updateContact(db, req.auth!, req.params.id, req.body);
      return { result: ok };
    },
  );
  r.post(
    '/api/contacts/:id/identifiers',
    { config: user, schema: { params: ContactIdParams, body: IdentifierInput, response: { 200: OkAnswer } } },
    async (req) => {
      await assertContacts(db, req.auth!);
      await addIdentifier(db, req.auth!, req.params.id, req.body);
      return { result: ok };
    },
  );
  r.delete(
    '/api/contacts/:id/identifiers/:identifierId',
    { config: user, schema: { params: IdentifierIdParams, response: { 200: OkAnswer } } },
    async (req) => {
      await assertContacts(db, req.auth!);
      await removeIdentifier(db, req.auth!, req.params.id, req.params.identifierId);
      return { result: ok };
    },
  );
  r.post(
    '/api/contacts/:id/merge',
    { config: user, schema: { params: ContactIdParams, body: MergeBody, response: { 200: MergeAnswer } } },
    async (req) => {
      await assertContacts(db, req.auth!);
      return { result: ok, merge_id: await mergeContacts(db, req.auth!, req.params.id, req.body.from) };
    },
  );
  r.post(
    '/api/contacts/merges/:mergeId/undo',
    { config: user, schema: { params: MergeIdParams, response: { 200: OkAnswer } } },
    async (req) => {
      await assertContacts(db, req.auth!);
      await undoMerge(db, req.auth!, req.params.mergeId);
      return { result: ok };
    },
  );
}
