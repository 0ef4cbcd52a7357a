import type { AiSettingsAnswer, AiSettingsInput, AiSettingsTestAnswer } from '@parley/contracts';
import { api } from '../../lib/http';

/** Settings -> AI: the account's engine, language model and translator; Test calls the model once. */
export const aiSettingsApi = {
  get: () => api<AiSettingsAnswer>('GET', '/api/ai/settings').then((r) => r.data),
  save: (input: AiSettingsInput) => api<AiSettingsAnswer>('PUT', '/api/ai/settings', input).then((r) => r.data),
  test: (input: Pick<AiSettingsInput, 'base_url' | 'model' | 'api_key'>) =>
    api<AiSettingsTestAnswer>('POST', '/api/ai/settings/test', input),
};
