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
import { useElementSize } from '@mantine/hooks';
import {
  TICKET_PAGE_SIZE,
  TICKET_VIEW_LABELS,
  TICKET_VIEWS,
  type TicketBulkInput,
  type TicketListItem,
} from '@parley/contracts';
import { IconPlus } from '@tabler/icons-react';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useMemo, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { useDepartments } from '../../lib/api/departments';
import { statusOptions, useTicketStatuses } from '../../lib/api/ticketStatuses';
import { applyTicketUpdate, loadQueryObject, ticketsApi } from '../../lib/api/tickets';
import { errorText } from '../../lib/http';
import { labelKeys, ticketKeys } from '../../lib/queryKeys';
import { useSession } from '../../lib/session';
import { shell, useShell } from '../../lib/shellStore';
import { toast } from '../../ui/toast';
import { BulkActions } from './BulkBar';
import { CampaignPicker, FilterPanel } from './FilterPanel';
import { useTicketListView } from './filterStore';
import { GroupList } from './GroupList';
import { holdHighlight } from './highlight';
import { NewTicketModal } from './NewTicketModal';
import { PresetsMenu } from './PresetsMenu';
import { T } from './strings';
import { TicketPaneSlot } from './TicketPaneSlot';
import { TicketPopup } from './TicketPopup';
import { TicketSearch } from './TicketSearch';
import classes from './TicketsScreen.module.css';
import { type RowActions, TicketTable } from './TicketTable';
import { useTicketLive } from './useTicketLive';
import { filtersOfView, useTicketView, useViewCounts } from './views';

/** Below this width the list uses two-line rows (beside an open ticket, on a phone). */
const COMPACT_BELOW = 760;

/**
 * TICKET-02 .. TICKET-05, TICKET-11, TICKET-35, TICKET-38 .. TICKET-60: the ticket screen. `/ticket/<id>`
 * shows the list beside the conversation pane of that ticket.
 */
/**
 * `bulkExtra`: further actions on the tickets chosen one by one, given by whoever composes the list (the
 * macro menu), so this feature needs no import of theirs.
 */
export function TicketsScreen({ bulkExtra }: { bulkExtra?: (ids: number[]) => ReactNode } = {}) {
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
  const {
    filters: chosenFilters,
    setFilters,
    tab,
    setTab,
  } = useTicketListView(state.phase === 'signedIn' ? state.session.userId : undefined);
  // The view (Mine, Unassigned, All) is in the address and narrows the filters the panel sets.
  const [view, setView] = useTicketView();
  const me = state.phase === 'signedIn' ? (state.session.adminUsername ?? '') : '';
  const filters = useMemo(() => filtersOfView(chosenFilters, view, me), [chosenFilters, view, me]);
  const viewCounts = useViewCounts(filters.status);
  // "Select all N matching": the bulk actions take the list's filter instead of the ticked ids.
  const [allMatching, setAllMatching] = useState(false);
  const filterKey = JSON.stringify(filters);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new list (filters, view) starts a new selection.
  useEffect(() => {
    setSelected(new Set());
    setAllMatching(false);
  }, [filterKey]);
  const { ref: areaRef, width: areaWidth } = useElementSize();
  const compact = areaWidth > 0 && areaWidth < COMPACT_BELOW;
  const qc = useQueryClient();
  const labelsQ = useQuery({ queryKey: labelKeys.list, queryFn: ticketsApi.labels, staleTime: 60_000 });
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

  /** A change of the selected tickets: a refusal shows as the alert above the list (else `fallback`). */
  const change = useMutation({
    mutationFn: (v: { call: () => Promise<void>; fallback: string }) => v.call(),
    onMutate: () => setActionError(null),
    onError: (err, { fallback }) => setActionError(errorText(err, fallback)),
  });
  const act = (fallback: string, call: () => Promise<void>) =>
    change.mutateAsync({ call, fallback }).catch(() => undefined);

  /** One bulk call on every ticket matching the list (after "Select all N matching"). */
  function bulkAll(action: Omit<TicketBulkInput, 'ids' | 'filter'>, done: string) {
    return act(T.bulk.failed, async () => {
      const r = await ticketsApi.bulk({
        ...action,
        filter: { status: filters.status, query: loadQueryObject(filters) },
      } as TicketBulkInput);
      toast({ message: T.bulk.done(done, r.ids.length) });
      afterBulk();
    });
  }
  function afterBulk() {
    void qc.invalidateQueries({ queryKey: ticketKeys.all });
    void qc.invalidateQueries({ queryKey: ticketKeys.viewsAll });
    setSelected(new Set());
    setAllMatching(false);
  }
  function setStatus(ids: number[], status: number) {
    if (allMatching) return bulkAll({ action: 'status', value: status }, T.bulk.statusSet);
    // TICKET-28: a failed status change shows the ticket as not found.
    return act('Ticket not found.', async () => {
      for (const id of ids) applyTicketUpdate(qc, (await ticketsApi.setStatus(id, status)).data);
    });
  }
  /** TICKET-51, TICKET-53: the priority of the selected tickets ('' none); a refusal shows as an alert. */
  function setPriority(ids: number[], priority: string) {
    if (allMatching) return bulkAll({ action: 'priority', value: priority as 'H' }, T.bulk.prioritySet);
    return act(T.priorityFailed, async () => {
      for (const id of ids) applyTicketUpdate(qc, (await ticketsApi.setPriority(id, priority)).data);
    });
  }
  /** TICKET-64: the campaign of the selected tickets (null: none). */
  function setCampaign(ids: number[], campaign: number | null) {
    return act('Ticket not found.', async () => {
      for (const id of ids) applyTicketUpdate(qc, (await ticketsApi.setCampaign(id, campaign)).data);
      toast({ message: T.campaignSet });
    });
  }
  const calls = rows.filter((t) => selected.has(t.id) && t.channel === 'CALL').length;
  const toggle = (t: TicketListItem) => {
    const next = new Set(selected);
    if (next.has(t.id)) next.delete(t.id);
    else next.add(t.id);
    setSelected(next);
    setAllMatching(false);
  };
  const actions: RowActions = {
    labels: labelMap,
    custom,
    selectMode: mode === 'select',
    selected,
    activeId: openId,
    compact,
    onToggle: toggle,
    onTogglePage: (page, on) => {
      const next = new Set(selected);
      for (const t of page) on ? next.add(t.id) : next.delete(t.id);
      setSelected(next);
      setAllMatching(false);
    },
    onClick: (t: TicketListItem) => {
      // Alt may go down just before the click, ahead of the next render: read it now.
      const mode = shell.get().altMode ? 'action' : chosenMode;
      if (mode === 'select') {
        // TICKET-58: select mode toggles; CALL tickets also count in the call selection.
        toggle(t);
      } else if (mode === 'action') {
        // TICKET-60, CRYPT-10: the popup, never for an encrypted ticket (a toast says why).
        if (t.encryption) toast({ message: T.encrypted, color: 'orange' });
        else live.setPopup(t);
      } else {
        if (t.newMessage) holdHighlight(t.id);
        navigate(`/ticket/${t.id}${view === 'all' ? '' : `?view=${view}`}`);
      }
    },
    onStatus: (t, status) => void setStatus([t.id], status),
  };

  const listArea = (
    <Stack
      gap="md"
      w="100%"
      data-testid="ticket-list-area"
      data-mode={mode}
      data-compact={compact || undefined}
      ref={areaRef}
    >
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
          <TicketSearch filters={chosenFilters} onChange={setFilters} />
          <FilterPanel filters={chosenFilters} onChange={setFilters} labels={labelsQ.data ?? []} />
          <PresetsMenu
            filters={chosenFilters}
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
        <Group gap="sm" wrap="wrap">
          <Button.Group aria-label={T.views}>
            {TICKET_VIEWS.map((v) => (
              <Button
                key={v}
                size="xs"
                variant={view === v ? 'filled' : 'default'}
                aria-pressed={view === v}
                data-testid={`view-${v}`}
                onClick={() => setView(v)}
                rightSection={
                  <Badge
                    size="xs"
                    variant={view === v ? 'white' : 'light'}
                    color="gray"
                    data-testid={`view-count-${v}`}
                  >
                    {viewCounts.data ? viewCounts.data[v] : '…'}
                  </Badge>
                }
              >
                {TICKET_VIEW_LABELS[v]}
              </Button>
            ))}
          </Button.Group>
          <SegmentedControl
            aria-label="Status"
            data={[...statusOptions(custom), { value: '4', label: 'All' }]}
            value={filters.status}
            onChange={(status) => {
              setFilters({ ...chosenFilters, status });
              live.clearNotice();
            }}
            w="fit-content"
          />
        </Group>
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
                setFilters({ ...chosenFilters, status: '0' });
                live.clearNotice();
              }}
            >
              {T.showOpen}
            </Button>
          </Group>
        </Alert>
      )}
      {selected.size > 0 && (
        <Group gap="sm" data-testid="selection-bar">
          <Text size="sm">
            {allMatching && count !== undefined ? T.bulk.allChosen(count) : T.selected(selected.size)}
          </Text>
          {!allMatching &&
            count !== undefined &&
            count > selected.size &&
            rows.every((r) => selected.has(r.id)) &&
            tab === 'all' && (
              <Button
                size="compact-xs"
                variant="light"
                onClick={() => setAllMatching(true)}
                data-testid="select-all-matching"
              >
                {T.bulk.allMatching(count)}
              </Button>
            )}
          {calls > 0 && (
            <Badge variant="light" tt="none">
              {T.callSelection(calls)}
            </Badge>
          )}
          <Select
            size="xs"
            w={130}
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
          <BulkActions
            target={
              allMatching
                ? { filter: { status: filters.status, query: loadQueryObject(filters) } }
                : { ids: [...selected] }
            }
            rows={rows.filter((r) => selected.has(r.id))}
            labels={labelsQ.data ?? []}
            me={me}
            onDone={afterBulk}
            onError={setActionError}
            slot={!allMatching && bulkExtra ? bulkExtra([...selected]) : undefined}
          />
          <Popover position="bottom-start" shadow="md" width={260} trapFocus>
            <Popover.Target>
              <Button size="compact-xs" variant="default" data-testid="set-campaign" disabled={allMatching}>
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
          <Button
            size="compact-xs"
            variant="subtle"
            onClick={() => {
              setSelected(new Set());
              setAllMatching(false);
            }}
          >
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
