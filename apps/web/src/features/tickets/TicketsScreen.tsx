import {
  Anchor,
  Badge,
  Button,
  Center,
  Group,
  Loader,
  MultiSelect,
  Popover,
  SegmentedControl,
  Select,
  Stack,
  Table,
  Tabs,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import {
  assigneeText,
  CHANNELS,
  channelName,
  type Label,
  TICKET_LOAD2_STEP,
  TICKET_PAGE_SIZE,
  type TicketListItem,
  type TicketUpdated,
  ticketDate,
} from '@parley/contracts';
import { IconFilter, IconSearch } from '@tabler/icons-react';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { realtime } from '../../lib/realtime';
import { useDepartments } from '../departments/api';
import { applyTicketUpdate, DEFAULT_FILTERS, type TicketFilters, ticketKeys, ticketsApi } from './api';
import { PresetsMenu } from './PresetsMenu';
import classes from './TicketsScreen.module.css';

const STATUS_TABS = [
  { value: '0', label: 'Open' },
  { value: '1', label: 'Pending' },
  { value: '2', label: 'Resolved' },
  { value: '3', label: 'Closed' },
  { value: '4', label: 'All' },
];

function LabelBadges({ ids, labels }: { ids: number[]; labels: Map<number, Label> }) {
  return (
    <>
      {ids.map((id) => {
        const l = labels.get(id);
        if (!l) return null;
        return (
          <Badge key={id} size="xs" variant="dot" color={l.color} tt="none">
            {l.removed ? 'Removed' : l.name}
          </Badge>
        );
      })}
    </>
  );
}

/** One row: TICKET-02 columns; the new-message highlight (TICKET-57), labels, assignees (TICKET-61). */
function TicketRow({ t, labels }: { t: TicketListItem; labels: Map<number, Label> }) {
  return (
    <Table.Tr data-testid="ticket-row" data-new={t.newMessage || undefined} className={classes.row}>
      <Table.Td className={classes.num}>{t.ticket_number}</Table.Td>
      <Table.Td>
        <Stack gap={2}>
          <Group gap={6} wrap="nowrap">
            {t.severity && (
              <Badge size="xs" color={t.severity === 'H' ? 'red' : t.severity === 'M' ? 'orange' : 'gray'}>
                {t.severity}
              </Badge>
            )}
            <Text size="sm" fw={t.newMessage ? 700 : 500} lineClamp={1}>
              {t.title}
            </Text>
            {t.newMessage && (
              <Badge size="xs" color="indigo" variant="filled" tt="none">
                {t.hasResponded ? 'Replied' : 'New message'}
              </Badge>
            )}
          </Group>
          <Group gap={6}>
            <Text size="xs" c="dimmed">
              {channelName(t.channel)} · {t.name || t.email || t.phone}
            </Text>
            <LabelBadges ids={t.label} labels={labels} />
            {t.assignee.length > 0 && (
              <Text size="xs" c="dimmed">
                → {assigneeText(t.assignee)}
              </Text>
            )}
          </Group>
        </Stack>
      </Table.Td>
      <Table.Td className={classes.date}>{ticketDate(t.created_at)}</Table.Td>
      <Table.Td className={classes.date}>{ticketDate(t.updated_at)}</Table.Td>
    </Table.Tr>
  );
}

function TicketTable({ rows, labels }: { rows: TicketListItem[]; labels: Map<number, Label> }) {
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table highlightOnHover verticalSpacing={6}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={70}>#</Table.Th>
            <Table.Th>Title</Table.Th>
            <Table.Th w={110}>Received</Table.Th>
            <Table.Th w={110}>Updated</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((t) => (
            <TicketRow key={t.id} t={t} labels={labels} />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function FilterPanel({
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
    filters.channels.length + filters.labels.length + filters.departments.length + filters.priorities.length;
  return (
    <Popover position="bottom-end" shadow="md" width={320} trapFocus>
      <Popover.Target>
        <Button variant="default" leftSection={<IconFilter size={16} />} data-testid="ticket-filters">
          Filters{active ? ` (${active})` : ''}
        </Button>
      </Popover.Target>
      <Popover.Dropdown aria-label="Filters">
        <Stack gap="sm">
          <MultiSelect
            label="Channel"
            data={Object.entries(CHANNELS)
              .filter(([code]) => code !== 'chat' && code !== 'LIVECHAT')
              .map(([value, label]) => ({ value, label: `${label}${label === 'Email' ? ` (${value})` : ''}` }))}
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

/** TICKET-35: a department's or a label's tickets, 10 more at a time. */
function GroupList({
  tab,
  status,
  id,
  name,
  labels,
}: {
  tab: 'department' | 'label';
  status: string;
  id: number;
  name: string;
  labels: Map<number, Label>;
}) {
  const q = useInfiniteQuery({
    queryKey: ticketKeys.tab(tab, status, id),
    queryFn: ({ pageParam }) => ticketsApi.load2(tab, status, id, pageParam),
    initialPageParam: 0,
    getNextPageParam: (last, all) =>
      last.data.length >= TICKET_LOAD2_STEP ? all.reduce((n, p) => n + p.data.length, 0) : undefined,
  });
  const rows = q.data?.pages.flatMap((p) => p.data) ?? [];
  const count = q.data?.pages[0]?.count ?? 0;
  return (
    <Stack gap={4} data-testid={`${tab}-group`}>
      <Group gap="xs">
        <Text fw={600}>{name}</Text>
        <Badge size="sm" variant="light" color="gray">
          {count}
        </Badge>
      </Group>
      {rows.length > 0 ? (
        <TicketTable rows={rows} labels={labels} />
      ) : (
        <Text size="sm" c="dimmed">
          {q.isPending ? 'Loading…' : 'No tickets.'}
        </Text>
      )}
      {q.hasNextPage && (
        <Button
          variant="subtle"
          size="xs"
          w="fit-content"
          onClick={() => q.fetchNextPage()}
          loading={q.isFetchingNextPage}
        >
          Show More
        </Button>
      )}
    </Stack>
  );
}

/** TICKET-02 .. TICKET-05, TICKET-11, TICKET-35, TICKET-38: the ticket screen. */
export function TicketsScreen() {
  const [filters, setFilters] = useState<TicketFilters>(DEFAULT_FILTERS);
  const [tab, setTab] = useState<string>('all');
  const qc = useQueryClient();
  const labelsQ = useQuery({ queryKey: ticketKeys.labels, queryFn: ticketsApi.labels, staleTime: 60_000 });
  const departments = useDepartments();
  const labelMap = useMemo(() => new Map((labelsQ.data ?? []).map((l) => [l.id, l])), [labelsQ.data]);
  const list = useInfiniteQuery({
    queryKey: ticketKeys.list(filters),
    queryFn: ({ pageParam }) => ticketsApi.load(filters, pageParam),
    initialPageParam: 0,
    // TICKET-38: Show More stays while a page comes back full.
    getNextPageParam: (last, all) =>
      last.data.length >= TICKET_PAGE_SIZE ? all.reduce((n, p) => n + p.data.length, 0) : undefined,
    enabled: tab === 'all',
  });
  useEffect(() => realtime.on('updateTicket', (data) => applyTicketUpdate(qc, data as TicketUpdated)), [qc]);

  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  const count = list.data?.pages[0]?.count;
  return (
    <Stack gap="md" w="100%">
      <Group justify="space-between" wrap="wrap">
        <Group gap="sm">
          <Title order={1} size="h2">
            Tickets
          </Title>
          {count !== undefined && tab === 'all' && (
            <Badge variant="light" color="gray" data-testid="ticket-count">
              {count}
            </Badge>
          )}
        </Group>
        <Group gap="sm">
          <TextInput
            aria-label="Search tickets"
            placeholder="Search title or #number"
            leftSection={<IconSearch size={16} />}
            value={filters.search}
            onChange={(e) => setFilters({ ...filters, search: e.currentTarget.value })}
          />
          <FilterPanel filters={filters} onChange={setFilters} labels={labelsQ.data ?? []} />
          <PresetsMenu
            filters={filters}
            count={count}
            onApply={(f) => {
              setTab('all');
              setFilters(f);
            }}
          />
        </Group>
      </Group>
      <SegmentedControl
        aria-label="Status"
        data={STATUS_TABS}
        value={filters.status}
        onChange={(status) => setFilters({ ...filters, status })}
        w="fit-content"
      />
      <Tabs value={tab} onChange={(v) => setTab(v ?? 'all')} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="all">All</Tabs.Tab>
          <Tabs.Tab value="department">Department</Tabs.Tab>
          <Tabs.Tab value="label">Label</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="all" pt="sm">
          {list.isPending ? (
            <Center mih={200}>
              <Loader aria-label="Loading" />
            </Center>
          ) : list.isError ? (
            <Text c="red" role="alert">
              {(list.error as Error).message}
            </Text>
          ) : rows.length === 0 ? (
            <Text c="dimmed" ta="center" py="xl">
              No tickets match.
            </Text>
          ) : (
            <TicketTable rows={rows} labels={labelMap} />
          )}
          {list.hasNextPage && (
            <Center mt="sm">
              <Button variant="light" onClick={() => list.fetchNextPage()} loading={list.isFetchingNextPage}>
                Show More
              </Button>
            </Center>
          )}
        </Tabs.Panel>
        <Tabs.Panel value="department" pt="sm">
          <Stack gap="lg">
            {(departments.data ?? []).map((d) => (
              <GroupList
                key={d.id}
                tab="department"
                status={filters.status}
                id={d.id}
                name={d.name}
                labels={labelMap}
              />
            ))}
            {departments.data?.length === 0 && <Text c="dimmed">No departments yet.</Text>}
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="label" pt="sm">
          <Stack gap="lg">
            {(labelsQ.data ?? [])
              .filter((l) => !l.removed)
              .map((l) => (
                <GroupList key={l.id} tab="label" status={filters.status} id={l.id} name={l.name} labels={labelMap} />
              ))}
            {labelsQ.data?.length === 0 && <Text c="dimmed">No labels yet.</Text>}
          </Stack>
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
