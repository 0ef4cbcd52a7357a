import type {
  AutomationDryRunAnswer,
  AutomationRule,
  AutomationRuleInput,
  AutomationRun,
  CannedReply,
  UserItem,
  WebhookListAnswer,
} from '@parley/contracts';
import { api } from '../../lib/http';

export const automationApi = {
  rules: () => api<{ data: AutomationRule[] }>('GET', '/api/automation/rules').then((r) => r.data),
  create: (input: AutomationRuleInput) =>
    api<{ data: AutomationRule }>('POST', '/api/automation/rules', input).then((r) => r.data),
  update: (id: number, input: AutomationRuleInput) =>
    api<{ data: AutomationRule }>('PUT', `/api/automation/rules/${id}`, input).then((r) => r.data),
  remove: (id: number) => api<{ result: 'success' }>('DELETE', `/api/automation/rules/${id}`),
  reorder: (ids: number[]) => api<{ result: 'success' }>('PUT', '/api/automation/rules/order', { ids }),
  runs: () => api<{ data: AutomationRun[] }>('GET', '/api/automation/runs').then((r) => r.data),
  dryRun: (input: AutomationRuleInput) =>
    api<AutomationDryRunAnswer>('POST', '/api/automation/dry-run', input).then((r) => r.data),
  /** The shared canned replies, the ones a rule may send. */
  canned: () => api<{ data: CannedReply[] }>('GET', '/api/replies/canned').then((r) => r.data.filter((c) => c.shared)),
  users: () => api<{ data: UserItem[] }>('GET', '/api/users').then((r) => r.data),
  /** The account's outgoing webhooks (Settings -> API and webhooks), the ones a rule may call. */
  webhooks: () => api<WebhookListAnswer>('GET', '/api/webhooks').then((r) => r.data),
};
