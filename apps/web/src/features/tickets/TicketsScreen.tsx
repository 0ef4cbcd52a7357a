import {
  Alert,
  Badge,
  Button,
  Center,
  Chip,
  Group,
  Loader,
  Popover,
  SegmentedControl,
  Select,
  Stack,
  Tabs,
  Text,
  Title,
} from '@mantine/core';
import { TICKET_PAGE_SIZE, type TicketListItem } from '@parley/contracts';
import { IconPlus } from '@tabler/icons-react';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { HttpError } from '../../lib/http';
import { shell, useShell } from '../../lib/shellStore';
import { toast } from '../../ui/toast';
import { useSession } from '../auth/useSession';
import { useDepartments } from '../departments/api';
import { applyTicketUpdate, ticketKeys, ticketsApi } from './api';
import { CampaignPicker, FilterPanel } from './FilterPanel';
import { useTicketListView } from './filterStore';
import { GroupList } from './GroupList';
import { holdHighlight } from './highlight';
import { NewTicketModal } from './NewTicketModal';
import { PresetsMenu } from './PresetsMenu';
import { statusOptions, useTicketStatuses } from './statuses';
import { T } from './strings';
import { TicketPaneSlot } from './TicketPaneSlot';
import { TicketPopup } from './TicketPopup';
import { TicketSearch } from './TicketSearch';
import classes from './TicketsScreen.module.css';
import { type RowActions, TicketTable } from './TicketTable';
import { useTicketLive } from './useTicketLive';

/**
 * TICKET-02 .. TICKET-05, TICKET-11, TICKET-35, TICKET-38 .. TICKET-60: the ticket screen. `/ticket/<id>`
 * shows the list beside the conversation pane of that ticket.
 */
export function TicketsScreen() {
  const [chosenMode, setMode] = useState<'open' | 'select' | 'action'>('open');
  // SHELL-62, TICKET-60: holding Alt is the action mode while it is held (useShortcuts sets `altMode`).
  const altHeld = useShell((s) => s.altMode);
  const mode = altHeld ? 'action' : chosenMode;
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [creating, setCreating] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);
  // `/ticket/<id>` is either this screen's own path (`/ticket/*`, with its pane) or the conversation screen's
  // (`/ticket/:id`, which places this list beside its own pane): the ticket is open in both.
  const { '*': rest = '', id: routeId = '' } = useParams();
  const paneId = /^\d+$/.test(rest) ? Number(rest) : null;
  const openId = paneId ?? (/^\d+$/.test(routeId) ? Number(routeId) : null);
  const navigate = useNavigate();
  const { state } = useSession();
  const isAdmin = state.phase === 'signedIn' && state.session.type === 'admin';
  // The filters outlive this screen: `/ticket` and `/ticket/:id` each mount it (filterStore.ts).
  const { filters, setFilters, tab, setTab } = useTicketListView(
    state.phase === 'signedIn' ? state.session.userId : undefined,
  );
  const qc = useQueryClient();
  const labelsQ = useQuery({ queryKey: ticketKeys.labels, queryFn: ticketsApi.labels, staleTime: 60_000 });
  const departments = useDepartments();
  const custom = useTicketStatuses();
  const live = useTicketLive({
    filters,
    isAdmin,
    openId,
    userId: state.phase === 'signedIn' ? state.session.userId : undefined,
  });
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
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  const count = list.data?.pages[0]?.count;

  async function setStatus(ids: number[], status: number) {
    setActionError(null);
    try {
      for (const id of ids) applyTicketUpdate(qc, (await ticketsApi.setStatus(id, status)).data);
    } catch (err) {
      // TICKET-28: a failed status change shows the ticket as not found.
      setActionError(err instanceof HttpError ? err.description : 'Ticket not found.');
    }
  }
  /** TICKET-51, TICKET-53: the priority of the selected tickets ('' none); a refusal shows as an alert. */
  async function setPriority(ids: number[], priority: string) {
    setActionError(null);
    try {
      for (const id of ids) applyTicketUpdate(qc, (await ticketsApi.setPriority(id, priority)).data);
    } catch (err) {
      setActionError(err instanceof HttpError ? err.description : T.priorityFailed);
    }
  }
  /** TICKET-64: the campaign of the selected tickets (null: none). */
  async function setCampaign(ids: number[], campaign: number | null) {
    setActionError(null);
    try {
      for (const id of ids) applyTicketUpdate(qc, (await ticketsApi.setCampaign(id, campaign)).data);
      toast({ message: T.campaignSet });
    } catch (err) {
      setActionError(err instanceof HttpError ? err.description : 'Ticket not found.');
    }
  }
  const calls = rows.filter((t) => selected.has(t.id) && t.channel === 'CALL').length;
  const actions: RowActions = {
    labels: labelMap,
    custom,
    selectMode: mode === 'select',
    selected,
    activeId: openId,
    onClick: (t: TicketListItem) => {
      // Alt may go down just before the click, ahead of the next render: read it now.
      const mode = shell.get().altMode ? 'action' : chosenMode;
      if (mode === 'select') {
        // TICKET-58: select mode toggles; CALL tickets also count in the call selection.
        const next = new Set(selected);
        if (next.has(t.id)) next.delete(t.id);
        else next.add(t.id);
        setSelected(next);
      } else if (mode === 'action') {
        // TICKET-60, CRYPT-10: the popup, never for an encrypted ticket (a toast says why).
        if (t.encryption) toast({ message: T.encrypted, color: 'orange' });
        else live.setPopup(t);
      } else {
        if (t.newMessage) holdHighlight(t.id);
        navigate(`/ticket/${t.id}`);
      }
    },
    onStatus: (t, status) => void setStatus([t.id], status),
  };

  const listArea = (
    <Stack gap="md" w="100%" data-testid="ticket-list-area" data-mode={mode}>
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
          {live.unread > 0 && (
            <Badge color="indigo" data-testid="ticket-unread">
              {live.unread >= 100 ? '99+' : live.unread} unread
            </Badge>
          )}
          {live.stack.length > 0 && (
            <Button
              size="compact-xs"
              variant="light"
              data-testid="new-message-stack"
              onClick={() => navigate(`/ticket/${live.stack[0]}`)}
            >
              New messages ({live.stack.length})
            </Button>
          )}
        </Group>
        <Group gap="sm">
          <TicketSearch filters={filters} onChange={setFilters} />
          <FilterPanel filters={filters} onChange={setFilters} labels={labelsQ.data ?? []} />
          <PresetsMenu
            filters={filters}
            count={count}
            onApply={(f) => {
              setTab('all');
              setFilters(f);
            }}
          />
          <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
            {T.newTicket}
          </Button>
        </Group>
      </Group>
      <Group justify="space-between" wrap="wrap">
        <SegmentedControl
          aria-label="Status"
          data={[...statusOptions(custom), { value: '4', label: 'All' }]}
          value={filters.status}
          onChange={(status) => {
            setFilters({ ...filters, status });
            live.clearNotice();
          }}
          w="fit-content"
        />
        <Group gap="xs">
          <Chip
            checked={chosenMode === 'select'}
            onChange={(on) => {
              setMode(on ? 'select' : 'open');
              setSelected(new Set());
            }}
            size="xs"
          >
            {T.selectMode}
          </Chip>
          <Chip checked={mode === 'action'} onChange={(on) => setMode(on ? 'action' : 'open')} size="xs">
            {T.actionMode}
          </Chip>
        </Group>
      </Group>
      {live.notice > 0 && (
        <Alert color="blue" data-testid="new-ticket-notice" withCloseButton onClose={live.clearNotice}>
          <Group gap="sm">
            <Text size="sm">{T.newTicketNotice(live.notice)}</Text>
            <Button
              size="compact-xs"
              variant="light"
              onClick={() => {
                setFilters({ ...filters, status: '0' });
                live.clearNotice();
              }}
            >
              {T.showOpen}
            </Button>
          </Group>
        </Alert>
      )}
      {mode === 'select' && selected.size > 0 && (
        <Group gap="sm" data-testid="selection-bar">
          <Text size="sm">{T.selected(selected.size)}</Text>
          {calls > 0 && (
            <Badge variant="light" tt="none">
              {T.callSelection(calls)}
            </Badge>
          )}
          <Select
            size="xs"
            placeholder="Set status"
            aria-label="Set status of the selected tickets"
            data={statusOptions(custom)}
            value={null}
            onChange={(v) => v !== null && void setStatus([...selected], Number(v))}
          />
          <Select
            size="xs"
            w={130}
            placeholder={T.setPriority}
            aria-label={T.setPriorityOfSelected}
            data={[
              { value: 'H', label: 'High' },
              { value: 'M', label: 'Medium' },
              { value: 'L', label: 'Low' },
              { value: 'none', label: 'None' },
            ]}
            value={null}
            onChange={(v) => v !== null && void setPriority([...selected], v === 'none' ? '' : v)}
          />
          <Popover position="bottom-start" shadow="md" width={260} trapFocus>
            <Popover.Target>
              <Button size="compact-xs" variant="default" data-testid="set-campaign">
                {T.setCampaign}
              </Button>
            </Popover.Target>
            <Popover.Dropdown>
              <Stack gap="xs">
                <CampaignPicker
                  label={T.setCampaign}
                  value=""
                  onChange={(v) => v && void setCampaign([...selected], Number(v))}
                />
                <Button size="compact-xs" variant="subtle" onClick={() => void setCampaign([...selected], null)}>
                  {T.noCampaign}
                </Button>
              </Stack>
            </Popover.Dropdown>
          </Popover>
          <Button size="compact-xs" variant="subtle" onClick={() => setSelected(new Set())}>
            Clear
          </Button>
        </Group>
      )}
      {actionError && (
        <Alert color="red" role="alert" withCloseButton onClose={() => setActionError(null)}>
          {actionError}
        </Alert>
      )}
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
            <TicketTable rows={rows} a={actions} />
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
              <GroupList key={d.id} tab="department" status={filters.status} id={d.id} name={d.name} a={actions} />
            ))}
            {departments.data?.length === 0 && <Text c="dimmed">No departments yet.</Text>}
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="label" pt="sm">
          <Stack gap="lg">
            {(labelsQ.data ?? [])
              .filter((l) => !l.removed)
              .map((l) => (
                <GroupList key={l.id} tab="label" status={filters.status} id={l.id} name={l.name} a={actions} />
              ))}
            {labelsQ.data?.length === 0 && <Text c="dimmed">No labels yet.</Text>}
          </Stack>
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );

  return (
    <>
      {paneId === null ? (
        listArea
      ) : (
        <div className={classes.split}>
          <div>{listArea}</div>
          <TicketPaneSlot ticketId={paneId} />
        </div>
      )}
      <TicketPopup
        ticket={live.popup}
        custom={custom}
        onClose={() => live.setPopup(null)}
        onOpen={(id) => {
          live.setPopup(null);
          navigate(`/ticket/${id}`);
        }}
      />
      <NewTicketModal
        opened={creating}
        onClose={() => setCreating(false)}
        onCreated={(id) => {
          setCreating(false);
          navigate(`/ticket/${id}`);
        }}
      />
    </>
  );
}
