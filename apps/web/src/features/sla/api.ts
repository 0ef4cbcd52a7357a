import type { BusinessHoursInput, HolidaysInput, SlaPoliciesInput, SlaSettings, TicketSla } from '@parley/contracts';
import { api } from '../../lib/http';

type Saved = { result: 'success'; description: string; data: SlaSettings };

export const slaApi = {
  settings: () => api<{ result: 'success'; data: SlaSettings }>('GET', '/api/sla/settings').then((r) => r.data),
  saveHours: (body: BusinessHoursInput) => api<Saved>('POST', '/api/sla/business_hours', body),
  deleteHours: (departmentId: number) => api<Saved>('POST', '/api/sla/business_hours/delete', { departmentId }),
  saveHolidays: (body: HolidaysInput) => api<Saved>('POST', '/api/sla/holidays', body),
  savePolicies: (body: SlaPoliciesInput) => api<Saved>('POST', '/api/sla/policies', body),
  ticket: (id: number) =>
    api<{ result: 'success'; data: TicketSla }>('GET', `/api/sla/ticket/${id}`).then((r) => r.data),
};
