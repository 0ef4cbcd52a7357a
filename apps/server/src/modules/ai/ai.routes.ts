import { readFile } from 'node:fs/promises';
import { AiHintAnswer, AiHintQuery, ErrorCode, VOICE_STRINGS, VoiceAnalysis, wantsAiHint } from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DB } from '../../platform/db/db.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import { type Conversations, readMultipart, sniffFile, type UploadGate } from '../messages/index.js';
import type { AiProviders } from './provider.js';
import { analyseVoice, decodeWav } from './voice.js';

/**
 * AI-06, AI-07: `GET /api/wauchat/recommendation` (text, messageId, channel, translation). The message must
 * be one of the caller's account, and one AI-03 allows (not the caller's own, not the translation bot's).
 * The account's provider answers (the offline engine unless it chose another).
 */
export function aiRoutes(
  app: FastifyInstance,
  deps: {
    db: DB;
    conversations: Conversations;
    providers: AiProviders;
    dataDir: string;
    uploadGate: UploadGate;
  },
): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/api/wauchat/recommendation',
    { config: { auth: 'user' }, schema: { querystring: AiHintQuery, response: { 200: AiHintAnswer } } },
    async (req) => {
      const auth = req.auth!;
      const q = req.query;
      const m = await deps.db
        .selectFrom('messages')
        .innerJoin('tickets', 'tickets.id', 'messages.ticket_id')
        .select(['messages.sender', 'messages.type', 'messages.ticket_id', 'tickets.channel'])
        .where('messages.account_id', '=', auth.accountId)
        .where('tickets.account_id', '=', auth.accountId)
        .where('messages.id', '=', q.messageId)
        .where('messages.deleted_at', 'is', null)
        .executeTakeFirst();
      // A message of a conversation the caller may not read (a private Workspace chat) is not found either.
      const readable =
        m &&
        (await deps.conversations.canRead(
          deps.db,
          { id: Number(m.ticket_id), accountId: auth.accountId, channel: m.channel },
          auth.userId,
        ));
      if (!m || !readable) throw notFound('Message not found.');
      if (!wantsAiHint(m, auth.username)) throw new AppError(400, 'NO_HINT', 'No hint is given for this message.');
      const provider = await deps.providers.forAccount(deps.db, auth.accountId);
      const hint = await provider.hint({
        accountId: auth.accountId,
        text: q.text,
        translation: q.translation,
        channel: q.channel,
        messageId: q.messageId,
      });
      return { result: 'success' as const, data: { messageId: q.messageId, ...hint } };
    },
  );

  // CALL-50, CALL-51: the voice reading of an uploaded recording (multipart field `attachment`); audio only.
  r.post(
    '/api/upload/voice',
    { config: { auth: 'user' }, schema: { response: { 200: VoiceAnalysis } } },
    async (req, res) => {
      if (!req.isMultipart()) throw new AppError(400, ErrorCode.validation, VOICE_STRINGS.noFile);
      const body = await readMultipart(req, res, deps);
      const file = body.files[0];
      if (!file) throw new AppError(400, ErrorCode.validation, VOICE_STRINGS.noFile);
      const mime = await sniffFile(file.path);
      if (!mime.startsWith('audio/')) throw new AppError(400, ErrorCode.validation, VOICE_STRINGS.notAudio);
      // The analysis reads the samples: only a checked audio file is read into memory (within the cap).
      return analyseVoice(decodeWav(await readFile(file.path)));
    },
  );
}
