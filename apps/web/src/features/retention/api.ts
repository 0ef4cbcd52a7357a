import type {
  RetentionPreviewAnswer,
  RetentionRuleAnswer,
  RetentionRuleInput,
  RetentionRuleListAnswer,
  RetentionRunAnswer,
  RetentionRunsAnswer,
} from '@parley/contracts';
import { api } from '../../lib/http';

/** Retention rules, the preview of the next run (of the saved rules or of a draft), Run now and the last runs. */
export const retentionApi = {
  rules: () => api<RetentionRuleListAnswer>('GET', '/api/retention/rules').then((r) => r.data),
  create: (input: RetentionRuleInput) => api<RetentionRuleAnswer>('POST', '/api/retention/rules', input),
  update: (id: number, input: RetentionRuleInput) =>
    api<RetentionRuleAnswer>('PUT', `/api/retention/rules/${id}`, input),
  remove: (id: number) => api<{ result: 'success' }>('DELETE', `/api/retention/rules/${id}`),
  preview: () => api<RetentionPreviewAnswer>('GET', '/api/retention/preview').then((r) => r.data),
  previewDraft: (input: RetentionRuleInput) =>
    api<RetentionPreviewAnswer>('POST', '/api/retention/preview', input).then((r) => r.data[0]),
  runs: () => api<RetentionRunsAnswer>('GET', '/api/retention/runs').then((r) => r.data),
  runNow: () => api<RetentionRunAnswer>('POST', '/api/retention/run').then((r) => r.data),
};
