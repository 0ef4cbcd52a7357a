import { z } from 'zod';
import { CAMPAIGN_PAGE_SIZE } from './tickets.js';

const blank = (v: unknown) => (v === '' || v === null ? undefined : v);

/**
 * Campaigns (`/campaign`, `/campaign/{id}`; see docs/campaigns.md): a named group of tickets that belong to one
 * push or event of the business (a product recall, a holiday sale's returns, an outbound survey). Tickets are
 * put in a campaign from their info panel; the list and the campaign's page show how its tickets stand.
 *
 * TICKET-64: a campaign.
 */
export const Campaign = z.object({ id: z.number(), name: z.string(), created_at: z.number() });
export type Campaign = z.infer<typeof Campaign>;
/** TICKET-10: `GET /api/campaign/list?pagination=5&page=N`, pages from 1. */
export const CampaignListQuery = z.object({
  pagination: z.preprocess(blank, z.coerce.number().int().min(1).max(100).default(CAMPAIGN_PAGE_SIZE)),
  page: z.preprocess(blank, z.coerce.number().int().min(1).max(1_000_000).default(1)),
});

export const CAMPAIGN_LIMITS = { name: 100 } as const;

export const CAMPAIGN_STRINGS = {
  title: 'Campaigns',
  none: 'No campaigns yet. An admin makes one; tickets join it from their Details panel.',
  noneAgent: 'No campaigns yet. An admin makes them; tickets join one from their Details panel.',
  notFound: 'Campaign not found.',
  nameRequired: 'Give the campaign a name.',
  nameTooLong: `A campaign name has at most ${CAMPAIGN_LIMITS.name} characters.`,
  nameTaken: (name: string) => `There is already a campaign named "${name}".`,
  notEmpty: (n: number) =>
    `This campaign still has ${n} ticket${n === 1 ? '' : 's'}. Move ${n === 1 ? 'it' : 'them'} to another campaign or to none first.`,
  adminsOnly: 'Only admins manage campaigns.',
  newCampaign: 'New campaign',
  name: 'Name',
  create: 'Create',
  rename: 'Rename',
  save: 'Save',
  remove: 'Delete',
  removeConfirm: (name: string) => `Delete the campaign "${name}"?`,
  removed: 'Campaign deleted.',
  created: 'Campaign created.',
  renamed: 'Campaign renamed.',
  tickets: 'Tickets',
  open: 'Open',
  pending: 'Pending',
  resolved: 'Resolved',
  closed: 'Closed',
  byChannel: 'By channel',
  created_at: 'Created',
  back: 'All campaigns',
  ticketsTitle: 'Tickets in this campaign',
  noTickets: 'No tickets in this campaign yet. Put a ticket in it from the ticket’s Details panel.',
  showMore: 'Show More...',
} as const;

export const CampaignName = z
  .string({ error: CAMPAIGN_STRINGS.nameRequired })
  .trim()
  .min(1, CAMPAIGN_STRINGS.nameRequired)
  .max(CAMPAIGN_LIMITS.name, CAMPAIGN_STRINGS.nameTooLong);

export const CampaignInput = z.object({ name: CampaignName });
export type CampaignInput = z.infer<typeof CampaignInput>;

/** A campaign with how many tickets it has and how many of them are not done yet (the list's rows). */
export const CampaignSummary = Campaign.extend({ tickets: z.number(), open: z.number() });
export type CampaignSummary = z.infer<typeof CampaignSummary>;
/** The list's rows carry their ticket counts (tickets, open: not resolved or closed) beside the spec's fields. */
export const CampaignListAnswer = z.object({ data: z.array(CampaignSummary), total: z.number() });

/** `GET /api/campaign/{id}`: the campaign and how its tickets stand, by status and by channel. */
export const CampaignDetail = z.object({
  campaign: Campaign,
  figures: z.object({
    tickets: z.number(),
    open: z.number(),
    pending: z.number(),
    resolved: z.number(),
    closed: z.number(),
    channels: z.array(z.object({ channel: z.string(), tickets: z.number() })),
  }),
});
export type CampaignDetail = z.infer<typeof CampaignDetail>;
export const CampaignAnswer = z.object({ result: z.literal('success'), data: Campaign });
