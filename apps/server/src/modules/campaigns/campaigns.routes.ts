import {
  CampaignAnswer,
  CampaignDetail,
  CampaignInput,
  CampaignListAnswer,
  CampaignListQuery,
  OkAnswer,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import { IdParams } from '../../platform/http/params.js';
import { campaignDetail, createCampaign, deleteCampaign, listCampaigns, renameCampaign } from './campaigns.js';

/**
 * TICKET-10, TICKET-64, TICKET-65: the campaign list (the filter panel's picker and `/campaign`), one campaign's
 * figures (`/campaign/{id}`), and the admins' create, rename and delete.
 */
export function campaignRoutes(app: FastifyInstance, deps: { db: DB }) {
  const { db } = deps;
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/api/campaign/list',
    { config: { auth: 'user' }, schema: { querystring: CampaignListQuery, response: { 200: CampaignListAnswer } } },
    async (req) => listCampaigns(db, req.auth!.accountId, req.query.pagination, req.query.page),
  );
  r.get(
    '/api/campaign/:id',
    {
      config: { auth: 'user' },
      schema: { params: IdParams, response: { 200: z.object({ result: z.literal('success'), data: CampaignDetail }) } },
    },
    async (req) => ({ result: 'success' as const, data: await campaignDetail(db, req.auth!.accountId, req.params.id) }),
  );
  r.post(
    '/api/campaign',
    { config: { auth: 'admin' }, schema: { body: CampaignInput, response: { 200: CampaignAnswer } } },
    async (req) => ({ result: 'success' as const, data: await createCampaign(db, req.auth!, req.body) }),
  );
  r.put(
    '/api/campaign/:id',
    { config: { auth: 'admin' }, schema: { params: IdParams, body: CampaignInput, response: { 200: CampaignAnswer } } },
    async (req) => ({ result: 'success' as const, data: await renameCampaign(db, req.auth!, req.params.id, req.body) }),
  );
  r.delete(
    '/api/campaign/:id',
    { config: { auth: 'admin' }, schema: { params: IdParams, response: { 200: OkAnswer } } },
    async (req) => {
      await deleteCampaign(db, req.auth!, req.params.id);
      return { result: 'success' as const };
    },
  );
}
