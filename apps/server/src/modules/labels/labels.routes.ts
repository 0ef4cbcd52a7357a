import {
  LABEL_STRINGS,
  LabelListAnswer,
  LabelUpdateAnswer,
  LabelUpdateInput,
  SettingsAnswer,
  SettingsUpdateAnswer,
  SettingsUpdateInput,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DB } from '../../platform/db/db.js';
import { updateLabels } from './commands/updateLabels.js';
import { updateSettings } from './commands/updateSettings.js';
import { listLabels, readSettings } from './labels.queries.js';

/** LABEL-09, LABEL-12, LABEL-17: everyone reads the labels and settings; admins change them. */
export function labelRoutes(app: FastifyInstance, deps: { db: DB }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;

  r.get(
    '/api/label/get',
    { config: { auth: 'user' }, schema: { response: { 200: LabelListAnswer } } },
    async (req) => ({
      result: 'success' as const,
      data: await listLabels(db, req.auth!.accountId),
    }),
  );
  r.post(
    '/api/label/update',
    { config: { auth: 'admin' }, schema: { body: LabelUpdateInput, response: { 200: LabelUpdateAnswer } } },
    async (req) => ({
      result: 'success' as const,
      description: LABEL_STRINGS.updated,
      data: await updateLabels(db, req.auth!, req.body),
    }),
  );
  r.get(
    '/api/settings/get',
    { config: { auth: 'user' }, schema: { response: { 200: SettingsAnswer } } },
    async (req) => ({
      result: 'success' as const,
      data: await readSettings(db, req.auth!.accountId),
    }),
  );
  r.post(
    '/api/settings/update',
    { config: { auth: 'admin' }, schema: { body: SettingsUpdateInput, response: { 200: SettingsUpdateAnswer } } },
    async (req) => {
      await updateSettings(db, req.auth!, req.body);
      return { result: 'success' as const, description: LABEL_STRINGS.settingsUpdated };
    },
  );
}
