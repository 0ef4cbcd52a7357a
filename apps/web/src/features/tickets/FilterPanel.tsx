import {
  Anchor,
  Button,
  Checkbox,
  Group,
  MultiSelect,
  NumberInput,
  Popover,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { CAMPAIGN_PAGE_SIZE, CHANNELS, channelPickName, type Label } from '@parley/contracts';
import { IconFilter } from '@tabler/icons-react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { advConditions } from '../../lib/api/advConditions';
import { useDepartments } from '../../lib/api/departments';
import { type DateSel, DEFAULT_FILTERS, type TicketFilters, ticketsApi } from '../../lib/api/tickets';
import { ticketKeys } from '../../lib/queryKeys';
import { AdvancedConditions } from './AdvancedConditions';
import { T } from './strings';

/** TICKET-10: the campaign picker, 5 campaigns a page from `/api/campaign/list`. */
export function CampaignPicker({
  value,
  onChange,
  label = T.campaign,
}: {
  value: string;
  onChange(v: string): void;
  label?: string;
}) {
  const [page, setPage] = useState(1);
  const q = useQuery({
    queryKey: ticketKeys.campaigns(page),
    queryFn: () => ticketsApi.campaigns(page),
    placeholderData: keepPreviousData,
  });
  const total = q.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / CAMPAIGN_PAGE_SIZE));
  if (total === 0) return null;
  return (
    <Stack gap={4} data-testid="campaign-picker">
      <Select
        label={label}
        data={(q.data?.data ?? []).map((c) => ({ value: String(c.id), label: c.name }))}
        value={value || null}
        onChange={(v) => onChange(v ?? '')}
        clearable
        comboboxProps={{ withinPortal: false }}
      />
      <Group gap="xs" justify="space-between">
        <Button size="compact-xs" variant="subtle" disabled={page <= 1} onClick={() => setPage(page - 1)}>
          {T.previous}
        </Button>
        <Text size="xs" c="dimmed">
          {page} / {pages}
        </Text>
        <Button size="compact-xs" variant="subtle" disabled={page >= pages} onClick={() => setPage(page + 1)}>
          {T.next}
        </Button>
      </Group>
    </Stack>
  );
}

/** TICKET-08: the quick ranges a preset can hold. */
function DateRangeSelect({
  label,
  value,
  ahead,
  onChange,
}: {
  label: string;
  value: DateSel;
  ahead?: boolean;
  onChange(v: DateSel): void;
}) {
  return (
    <Select
      label={label}
      placeholder="Any time"
      data={[
        { value: 'current', label: 'Today' },
        { value: 'yesterday', label: 'Yesterday' },
        { value: '1week', label: ahead ? 'Next 7 days' : 'Last 7 days' },
      ]}
      value={value || null}
      onChange={(v) => onChange((v ?? '') as DateSel)}
      clearable
      comboboxProps={{ withinPortal: false }}
    />
  );
}

/**
 * TICKET-05, TICKET-06: the filter panel, with the assignment, status-setter and first-reply filters whose
 * meaning docs/tickets.md gives.
 */
export function FilterPanel({
  filters,
  onChange,
  labels,
}: {
  filters: TicketFilters;
  onChange(f: TicketFilters): void;
  labels: Label[];
}) {
  const departments = useDepartments();
  const active =
    filters.channels.length +
    filters.labels.length +
    filters.departments.length +
    filters.priorities.length +
    (filters.campaign ? 1 : 0) +
    (filters.agent ? 1 : 0) +
    (filters.reply ? 1 : 0) +
    (filters.updated ? 1 : 0) +
    (filters.created ? 1 : 0) +
    (filters.appointment ? 1 : 0) +
    (filters.apptLessTwoDays ? 1 : 0) +
    (filters.appt ? 1 : 0) +
    (filters.automatic ? 1 : 0) +
    (filters.statusBy ? 1 : 0) +
    (filters.replyTAT.trim() ? 1 : 0) +
    advConditions(filters.adv).length;
  return (
    <Popover position="bottom-end" shadow="md" width={340} trapFocus>
      <Popover.Target>
        <Button variant="default" leftSection={<IconFilter size={16} />} data-testid="ticket-filters">
          Filters{active ? ` (${active})` : ''}
        </Button>
      </Popover.Target>
      {/* Taller than a laptop screen with every filter: it scrolls inside, so it never moves off screen. */}
      <Popover.Dropdown aria-label="Filters" mah="calc(100dvh - 140px)" style={{ overflowY: 'auto' }}>
        <Stack gap="sm">
          <MultiSelect
            label="Channel"
            data={Object.keys(CHANNELS)
              .filter((code) => code !== 'chat' && code !== 'LIVECHAT')
              .map((value) => ({ value, label: channelPickName(value) }))}
            value={filters.channels}
            onChange={(channels) => onChange({ ...filters, channels })}
            comboboxProps={{ withinPortal: false }}
            clearable
          />
          <MultiSelect
            label="Label"
            data={labels.filter((l) => !l.removed).map((l) => ({ value: String(l.id), label: l.name }))}
            value={filters.labels}
            onChange={(v) => onChange({ ...filters, labels: v })}
            comboboxProps={{ withinPortal: false }}
            clearable
          />
          <MultiSelect
            label="Department"
            data={(departments.data ?? []).map((d) => ({ value: String(d.id), label: d.name }))}
            value={filters.departments}
            onChange={(v) => onChange({ ...filters, departments: v })}
            comboboxProps={{ withinPortal: false }}
            clearable
          />
          <MultiSelect
            label="Priority"
            data={[
              { value: 'H', label: 'High' },
              { value: 'M', label: 'Medium' },
              { value: 'L', label: 'Low' },
              { value: 'none', label: 'None' },
            ]}
            value={filters.priorities}
            onChange={(v) => onChange({ ...filters, priorities: v })}
            comboboxProps={{ withinPortal: false }}
            clearable
          />
          <CampaignPicker value={filters.campaign} onChange={(campaign) => onChange({ ...filters, campaign })} />
          <TextInput
            label="Agent"
            placeholder="Username"
            value={filters.agent}
            onChange={(e) => onChange({ ...filters, agent: e.currentTarget.value })}
          />
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              Reply
            </Text>
            <SegmentedControl
              aria-label="Reply"
              size="xs"
              data={[
                { value: '', label: 'Any' },
                { value: '1', label: 'Replied' },
                { value: '0', label: 'Not replied' },
              ]}
              value={filters.reply}
              onChange={(reply) => onChange({ ...filters, reply })}
            />
          </Stack>
          <Group grow gap="xs" align="flex-start">
            <Select
              label={T.assignedBy}
              placeholder={T.any}
              data={[
                { value: '1', label: T.automatically },
                { value: '0', label: T.notAutomatically },
              ]}
              value={filters.automatic || null}
              onChange={(v) => onChange({ ...filters, automatic: (v ?? '') as TicketFilters['automatic'] })}
              clearable
              comboboxProps={{ withinPortal: false }}
            />
            <Select
              label={T.statusSetBy}
              placeholder={T.any}
              data={[
                { value: 'auto', label: T.automatically },
                { value: 'person', label: T.byPerson },
              ]}
              value={filters.statusBy || null}
              onChange={(v) => onChange({ ...filters, statusBy: (v ?? '') as TicketFilters['statusBy'] })}
              clearable
              comboboxProps={{ withinPortal: false }}
            />
          </Group>
          <NumberInput
            label={T.replyTAT}
            placeholder={T.minutes}
            min={1}
            max={525_600}
            allowDecimal={false}
            allowNegative={false}
            value={filters.replyTAT}
            onChange={(v) => onChange({ ...filters, replyTAT: v === '' ? '' : String(v) })}
          />
          <AdvancedConditions rows={filters.adv} onChange={(adv) => onChange({ ...filters, adv })} />
          {/* One start/end pair in the load call: choosing Received clears Updated and the other way. */}
          <Group grow gap="xs" align="flex-start">
            <DateRangeSelect
              label="Received"
              value={filters.created}
              onChange={(created) => onChange({ ...filters, created, updated: created ? '' : filters.updated })}
            />
            <DateRangeSelect
              label="Updated"
              value={filters.updated}
              onChange={(updated) => onChange({ ...filters, updated, created: updated ? '' : filters.created })}
            />
          </Group>
          {/* TICKET-62 `appt`: "has none" cannot stand beside a day range (the server refuses it): each clears the other. */}
          <Stack gap={4}>
            <Text size="sm" fw={500} id="appt-filter-label">
              {T.apptFilter}
            </Text>
            <SegmentedControl
              aria-labelledby="appt-filter-label"
              size="xs"
              data={[
                { value: '', label: T.any },
                { value: '1', label: T.apptHas },
                { value: '0', label: T.apptHasNone },
              ]}
              value={filters.appt}
              onChange={(v) => {
                const appt = v as TicketFilters['appt'];
                onChange(
                  appt === '0' ? { ...filters, appt, appointment: '', apptLessTwoDays: false } : { ...filters, appt },
                );
              }}
            />
          </Stack>
          <DateRangeSelect
            label="Appointment"
            ahead
            value={filters.appointment}
            onChange={(appointment) =>
              onChange({ ...filters, appointment, appt: appointment && filters.appt === '0' ? '' : filters.appt })
            }
          />
          <Checkbox
            label="Appointment in under 2 days"
            checked={filters.apptLessTwoDays}
            onChange={(e) => {
              const on = e.currentTarget.checked;
              onChange({ ...filters, apptLessTwoDays: on, appt: on && filters.appt === '0' ? '' : filters.appt });
            }}
          />
          <Select
            label="Sort by"
            data={[
              { value: 'updated', label: 'Last updated' },
              { value: 'created', label: 'Received' },
              { value: 'priority', label: 'Priority' },
            ]}
            value={filters.sort}
            onChange={(v) => v && onChange({ ...filters, sort: v })}
            allowDeselect={false}
            comboboxProps={{ withinPortal: false }}
          />
          <Anchor component="button" size="sm" onClick={() => onChange({ ...DEFAULT_FILTERS, status: filters.status })}>
            Clear filters
          </Anchor>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}
