import {
  AiSettingsAnswer,
  AiSettingsInput,
  AiSettingsTestAnswer,
  AI_SETTINGS_STRINGS as S,
  WauchatAnswer,
  WauchatQuery,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DB } from '../../platform/db/db.js';
import { AppError, badRequest } from '../../platform/http/errors.js';
import type { AccountAi } from './aiSettings.js';
import { analyseMessage } from './engine/analyse.js';
import { modelUrlProblem, rewriteDraft } from './openai.js';

/** The Test call's settings: the form's, not yet saved; without `api_key` the stored key is used. */
const TestInput = AiSettingsInput.pick({ base_url: true, model: true, api_key: true });

/**
 * AI-01: `GET /api/ai/settings` (everyone: which engine answers), `PUT /api/ai/settings` and
 * `POST /api/ai/settings/test` (admins). AI-04, AI-05: `GET /api/wauchat`.
 */
export function aiSettingsRoutes(app: FastifyInstance, deps: { db: DB; ai: AccountAi }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db, ai } = deps;
  const tags = ['ai'];

  r.get(
    '/api/ai/settings',
    { config: { auth: 'user' }, schema: { tags, response: { 200: AiSettingsAnswer } } },
    async (req) => ({ result: 'success' as const, data: await ai.view(db, req.auth!.accountId) }),
  );
  r.put(
    '/api/ai/settings',
    { config: { auth: 'admin' }, schema: { tags, body: AiSettingsInput, response: { 200: AiSettingsAnswer } } },
    async (req) => {
      const auth = req.auth!;
      await ai.save(db, auth, req.body);
      return { result: 'success' as const, data: await ai.view(db, auth.accountId) };
    },
  );
  r.post(
    '/api/ai/settings/test',
    { config: { auth: 'admin' }, schema: { tags, body: TestInput, response: { 200: AiSettingsTestAnswer } } },
    async (req) => {
      const { base_url, model, api_key } = req.body;
      if (!base_url || !model) throw badRequest(S.incomplete);
      const problem = modelUrlProblem(base_url, ai.allowedHosts);
      if (problem) throw badRequest(problem);
      const apiKey = api_key ?? (await ai.storedKey(db, req.auth!.accountId));
      const started = Date.now();
      try {
        const sample = await ai
          .client({ baseUrl: base_url, model, apiKey })
          .chat([{ role: 'user', content: 'Answer with the single word: ready' }], { temperature: 0, maxTokens: 5 });
        return { result: 'success' as const, model, ms: Date.now() - started, sample: sample.slice(0, 200) };
      } catch (err) {
        // The model's failure is the Test's answer (shown under the button), not an error of this call.
        if (err instanceof AppError) return { result: 'failed' as const, description: err.message };
        throw err;
      }
    },
  );

  r.get(
    '/api/wauchat',
    { config: { auth: 'user' }, schema: { tags, querystring: WauchatQuery, response: { 200: WauchatAnswer } } },
    async (req) => {
      const { type, message } = req.query;
      const { model } = await ai.engineFor(db, req.auth!.accountId);
      const reading = type === 'personality' ? analyseMessage(message) : undefined;
      if (model) {
        const text = await rewriteDraft(model, type, message, reading);
        return { result: 'success' as const, data: { type, text, engine: 'openai' as const, cues: [] } };
      }
      // The built-in engine writes no rewrites: it says what it read, or that a model is needed.
      if (reading) {
        const style = reading.personality.value;
        const text = style ? S.personalityRead(S.personalityNames[style] ?? style) : S.personalityNone;
        return {
          result: 'success' as const,
          data: { type, text, engine: 'offline' as const, cues: reading.personality.cues, analysis: reading },
        };
      }
      return { result: 'not_configured' as const, description: S.needsModel };
    },
  );
}
