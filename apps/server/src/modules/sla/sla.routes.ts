import {
  BusinessHoursDeleteInput,
  BusinessHoursInput,
  HolidaysInput,
  SLA_POLICY_STRINGS,
  SlaPoliciesInput,
  SlaSavedAnswer,
  SlaSettingsAnswer,
  TicketSlaAnswer,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DB } from '../../platform/db/db.js';
import { IdParams } from '../../platform/http/params.js';
import { deleteBusinessHours, saveBusinessHours, saveHolidays, savePolicies } from './commands/updateSlaSettings.js';
import { readSlaSettings, ticketSla } from './sla.queries.js';

/** Business hours, holidays and SLA policies: admins read and change them; everyone reads a ticket's SLA. */
export function slaRoutes(app: FastifyInstance, deps: { db: DB; now: () => number }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;
  const saved = (data: Awaited<ReturnType<typeof readSlaSettings>>) => ({
    result: 'success' as const,
    description: SLA_POLICY_STRINGS.saved,
    data,
  });

  r.get(
    '/api/sla/settings',
    { config: { auth: 'admin' }, schema: { response: { 200: SlaSettingsAnswer } } },
    async (req) => ({ result: 'success' as const, data: await readSlaSettings(db, req.auth!.accountId) }),
  );
  r.post(
    '/api/sla/business_hours',
    { config: { auth: 'admin' }, schema: { body: BusinessHoursInput, response: { 200: SlaSavedAnswer } } },
    async (req) => saved(await saveBusinessHours(db, req.auth!, req.body)),
  );
  r.post(
    '/api/sla/business_hours/delete',
    { config: { auth: 'admin' }, schema: { body: BusinessHoursDeleteInput, response: { 200: SlaSavedAnswer } } },
    async (req) => saved(await deleteBusinessHours(db, req.auth!, req.body.departmentId)),
  );
  r.post(
    '/api/sla/holidays',
    { config: { auth: 'admin' }, schema: { body: HolidaysInput, response: { 200: SlaSavedAnswer } } },
    async (req) => saved(await saveHolidays(db, req.auth!, req.body)),
  );
  r.post(
    '/api/sla/policies',
    { config: { auth: 'admin' }, schema: { body: SlaPoliciesInput, response: { 200: SlaSavedAnswer } } },
    async (req) => saved(await savePolicies(db, req.auth!, req.body)),
  );
  r.get(
    '/api/sla/ticket/:id',
    { config: { auth: 'user' }, schema: { params: IdParams, response: { 200: TicketSlaAnswer } } },
    async (req) => ({
      result: 'success' as const,
      data: await ticketSla(db, req.auth!.accountId, req.params.id, deps.now()),
    }),
  );
}
