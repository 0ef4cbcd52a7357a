import { type AdvRow, readAdvRows } from '../../lib/api/advConditions';
import {
  DATE_SELS,
  type DateSel,
  DEFAULT_FILTERS,
  dateRange,
  SEARCH_FIELDS,
  type TicketFilters,
} from '../../lib/api/tickets';

/**
 * TICKET-07 .. TICKET-09: a saved filter preset, kept in local storage per user under
 * `parley.ticketPresets.<userId>`. `count` is how many tickets matched when it was saved or last applied.
 * Settings use the spec's names; ours map onto them (filter = status, depFilter = departments, ...).
 */
export interface TicketPreset {
  name: string;
  count: number;
  settings: {
    filter: string;
    campaignId: string;
    channelFilter: string[];
    labelFilter: string[];
    depFilter: string[];
    priorityFilter: string[];
    automaticStatus: string;
    noAutomaticStatus: string;
    apptLessTwoDays: boolean;
    agentSelected: string;
  };
  /** TICKET-08: value current, yesterday or 1week, with sd/ed in unix seconds (as when saved). */
  dateSelection: Record<'updated' | 'created' | 'appointment', { value: string; sd: number; ed: number } | null>;
  /** Ours: the sort and search that were on, and the assignment and first-reply filters (TICKET-06). */
  sort: string;
  search: string;
  automatic?: string;
  replyTAT?: string;
  /** Ours: what the search reads (name, email, phone; '' title or number) and the has/has no appointment filter. */
  searchField?: string;
  appt?: string;
  /** Ours: the advanced condition rows (TICKET-06 `advFilter`). */
  conditions?: AdvRow[];
}

export const presetKey = (userId: number | undefined) => `parley.ticketPresets.${userId ?? 'anon'}`;

export function toPreset(name: string, f: TicketFilters, count: number): TicketPreset {
  return {
    name: name.trim(),
    count,
    settings: {
      filter: f.status,
      campaignId: f.campaign,
      channelFilter: [...f.channels],
      labelFilter: [...f.labels],
      depFilter: [...f.departments],
      priorityFilter: [...f.priorities],
      automaticStatus: f.statusBy === 'auto' ? '1' : '',
      noAutomaticStatus: f.statusBy === 'person' ? '1' : '',
      apptLessTwoDays: f.apptLessTwoDays,
      agentSelected: f.agent,
    },
    dateSelection: {
      updated: dateSel(f.updated, 'updated'),
      created: dateSel(f.created, 'created'),
      appointment: dateSel(f.appointment, 'appointment'),
    },
    sort: f.sort,
    search: f.search,
    automatic: f.automatic,
    replyTAT: f.replyTAT,
    searchField: f.searchField,
    appt: f.appt,
    conditions: f.adv.map((r) => ({ ...r })),
  };
}

function dateSel(value: DateSel, kind: 'updated' | 'created' | 'appointment') {
  const r = dateRange(value, kind);
  return r ? { value, ...r } : null;
}

/** A saved range is reapplied by its value (today is today when the preset is opened again). */
function readSel(v: unknown): DateSel {
  const value = v && typeof v === 'object' ? (v as { value?: unknown }).value : undefined;
  return (DATE_SELS as readonly unknown[]).includes(value) ? (value as DateSel) : '';
}

export function fromPreset(p: TicketPreset): TicketFilters {
  const s = p.settings ?? ({} as Partial<TicketPreset['settings']>);
  const list = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);
  return {
    ...DEFAULT_FILTERS,
    // Default codes 0-4 and custom status codes.
    status: typeof s.filter === 'string' && /^\d{1,6}$/.test(s.filter) ? s.filter : DEFAULT_FILTERS.status,
    campaign: typeof s.campaignId === 'string' && /^\d+$/.test(s.campaignId) ? s.campaignId : '',
    agent: typeof s.agentSelected === 'string' ? s.agentSelected : '',
    channels: list(s.channelFilter),
    labels: list(s.labelFilter),
    departments: list(s.depFilter),
    priorities: list(s.priorityFilter),
    sort: typeof p.sort === 'string' ? p.sort : DEFAULT_FILTERS.sort,
    search: typeof p.search === 'string' ? p.search : '',
    searchField: (SEARCH_FIELDS as readonly unknown[]).includes(p.searchField)
      ? (p.searchField as TicketFilters['searchField'])
      : '',
    // `appt` 0 cannot stand beside an appointment range (the server refuses it): the range wins.
    appt:
      p.appt === '1' || (p.appt === '0' && !readSel(p.dateSelection?.appointment) && s.apptLessTwoDays !== true)
        ? p.appt
        : '',
    updated: readSel(p.dateSelection?.updated),
    created: readSel(p.dateSelection?.created),
    appointment: readSel(p.dateSelection?.appointment),
    apptLessTwoDays: s.apptLessTwoDays === true,
    automatic: p.automatic === '1' || p.automatic === '0' ? p.automatic : '',
    statusBy: s.automaticStatus === '1' ? 'auto' : s.noAutomaticStatus === '1' ? 'person' : '',
    replyTAT: typeof p.replyTAT === 'string' && /^\d{1,6}$/.test(p.replyTAT) ? p.replyTAT : '',
    adv: readAdvRows(p.conditions),
  };
}

/** Saving under an existing name replaces that preset; names are unique per user. */
export function savePreset(list: TicketPreset[], p: TicketPreset): TicketPreset[] {
  return [...list.filter((x) => x.name !== p.name), p].sort((a, b) => a.name.localeCompare(b.name));
}
