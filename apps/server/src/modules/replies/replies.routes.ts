import {
  CannedReplyAnswer,
  CannedReplyInput,
  CannedReplyListAnswer,
  CannedReplyQuery,
  MacroAnswer,
  MacroInput,
  MacroListAnswer,
  MacroRunAnswer,
  MacroRunInput,
  MacroUndoAnswer,
  OkAnswer,
  ReplyIdParams,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DB } from '../../platform/db/db.js';
import type { Conversations } from '../messages/index.js';
import { runMacro } from './commands/runMacro.js';
import { createCannedReply, deleteCannedReply, updateCannedReply } from './commands/saveCannedReply.js';
import { createMacro, deleteMacro, updateMacro } from './commands/saveMacro.js';
import { undoMacroRun } from './commands/undoMacroRun.js';
import { listCannedReplies, listMacros } from './replies.queries.js';

/**
 * Canned replies (everyone manages their own; admins the shared ones) and macros (admins manage them,
 * everyone runs them and undoes their own last run).
 */
export function replyRoutes(app: FastifyInstance, deps: { db: DB; conversations: Conversations }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db, conversations } = deps;
  const ok = 'success' as const;

  r.get(
    '/api/replies/canned',
    { config: { auth: 'user' }, schema: { querystring: CannedReplyQuery, response: { 200: CannedReplyListAnswer } } },
    async (req) => ({ result: ok, data: await listCannedReplies(db, req.auth!, req.query) }),
  );
  r.post(
    '/api/replies/canned',
    { config: { auth: 'user' }, schema: { body: CannedReplyInput, response: { 200: CannedReplyAnswer } } },
    async (req) => ({ result: ok, data: await createCannedReply(db, req.auth!, req.body) }),
  );
  r.put(
    '/api/replies/canned/:id',
    {
      config: { auth: 'user' },
      schema: { params: ReplyIdParams, body: CannedReplyInput, response: { 200: CannedReplyAnswer } },
    },
    async (req) => ({ result: ok, data: await updateCannedReply(db, req.auth!, req.params.id, req.body) }),
  );
  r.delete(
    '/api/replies/canned/:id',
    { config: { auth: 'user' }, schema: { params: ReplyIdParams, response: { 200: OkAnswer } } },
    async (req) => {
      await deleteCannedReply(db, req.auth!, req.params.id);
      return { result: ok };
    },
  );

  r.get('/api/macros', { config: { auth: 'user' }, schema: { response: { 200: MacroListAnswer } } }, async (req) => ({
    result: ok,
    data: await listMacros(db, req.auth!.accountId),
  }));
  r.post(
    '/api/macros',
    { config: { auth: 'admin' }, schema: { body: MacroInput, response: { 200: MacroAnswer } } },
    async (req) => ({ result: ok, data: await createMacro(db, req.auth!, req.body) }),
  );
  r.put(
    '/api/macros/:id',
    { config: { auth: 'admin' }, schema: { params: ReplyIdParams, body: MacroInput, response: { 200: MacroAnswer } } },
    async (req) => ({ result: ok, data: await updateMacro(db, req.auth!, req.params.id, req.body) }),
  );
  r.delete(
    '/api/macros/:id',
    { config: { auth: 'admin' }, schema: { params: ReplyIdParams, response: { 200: OkAnswer } } },
    async (req) => {
      await deleteMacro(db, req.auth!, req.params.id);
      return { result: ok };
    },
  );
  r.post(
    '/api/macros/:id/run',
    {
      config: { auth: 'user' },
      schema: { params: ReplyIdParams, body: MacroRunInput, response: { 200: MacroRunAnswer } },
    },
    async (req) => {
      const { description, ...data } = await runMacro(db, conversations, req.auth!, req.params.id, req.body.ticket_ids);
      return { result: ok, description, data };
    },
  );
  r.post(
    '/api/macros/runs/:id/undo',
    { config: { auth: 'user' }, schema: { params: ReplyIdParams, response: { 200: MacroUndoAnswer } } },
    async (req) => {
      const { description, ...data } = await undoMacroRun(db, conversations, req.auth!, req.params.id);
      return { result: ok, description, data };
    },
  );
}
