import {
  ChatAnswer,
  ChatIdInput,
  ChatIdParams,
  ChatListAnswer,
  ChatListQuery,
  CreateChatInput,
  UpdateChatInput,
  WORKSPACE_STRINGS as W,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import { notFound } from '../../platform/http/errors.js';
import type { Conversations } from '../messages/index.js';
import { createChat } from './commands/createChat.js';
import { readChat } from './commands/readChat.js';
import { updateChat } from './commands/updateChat.js';
import { chatItem, listChats, memberChat } from './workspace.queries.js';

const Ok = z.object({ result: z.literal('success') });

/** Workspace chats (CHAT-02..CHAT-07): list, one chat, create, update, read. Members only. */
export function workspaceRoutes(app: FastifyInstance, deps: { db: DB; conversations: Conversations }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db, conversations } = deps;
  const ok = { result: 'success' as const };
  const user = { auth: 'user' as const };
  const me = (a: { accountId: number; userId: number; username: string }) => ({
    accountId: a.accountId,
    userId: a.userId,
    username: a.username,
  });

  r.get(
    '/api/chat/list',
    { config: user, schema: { querystring: ChatListQuery, response: { 200: ChatListAnswer } } },
    async (req) => ({ ...ok, ...(await listChats(db, me(req.auth!), req.query.offset)) }),
  );

  r.get(
    '/api/chat/:id',
    { config: user, schema: { params: ChatIdParams, response: { 200: ChatAnswer } } },
    async (req) => {
      await memberChat(db, req.auth!, req.params.id);
      const data = await chatItem(db, me(req.auth!), req.params.id);
      if (!data) throw notFound(W.chatNotFound);
      return { ...ok, data };
    },
  );

  r.post(
    '/api/chat/create',
    { config: user, schema: { body: CreateChatInput, response: { 200: ChatAnswer } } },
    async (req) => ({ ...ok, data: await createChat(db, conversations, req.auth!, req.body) }),
  );

  r.post(
    '/api/chat/update',
    {
      config: user,
      schema: {
        body: UpdateChatInput,
        response: { 200: ChatAnswer.extend({ data: ChatAnswer.shape.data.nullable() }) },
      },
    },
    async (req) => ({ ...ok, data: await updateChat(db, conversations, req.auth!, req.body) }),
  );

  r.post('/api/chat/read', { config: user, schema: { body: ChatIdInput, response: { 200: Ok } } }, async (req) => {
    await readChat(db, req.auth!, req.body.id);
    return ok;
  });
}
