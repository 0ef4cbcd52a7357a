import { ActionIcon, Alert, Anchor, Badge, Button, Group, Menu, Paper, Stack, Text, Title } from '@mantine/core';
import {
  assigneeList,
  assigneeText,
  channelName,
  TICKET_PAGE_SIZE,
  type TicketListItem,
  type TicketLoadAnswer,
  ticketDate,
} from '@parley/contracts';
import { IconDots, IconLayoutKanban } from '@tabler/icons-react';
import { type InfiniteData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type DragEvent, useEffect, useMemo, useState } from 'react';
import { Navigate, useNavigate } from 'react-router';
import { useTicketStatuses } from '../../lib/api/ticketStatuses';
import { applyTicketUpdate, DEFAULT_FILTERS, ticketsApi } from '../../lib/api/tickets';
import { errorText } from '../../lib/http';
import { useDisplayName } from '../../lib/people';
import { ticketKeys } from '../../lib/queryKeys';
import { useRealtimeEvent } from '../../lib/realtime';
import { useSession } from '../../lib/session';
import { EmptyScreen } from '../../ui/EmptyScreen';
import { toast } from '../../ui/toast';
import { columnCount, groupBoard, type KanbanColumn, kanbanColumns } from './board';
import classes from './KanbanScreen.module.css';
import { K } from './strings';

type Pages = InfiniteData<TicketLoadAnswer, number>;
/** The drag payload's type: only our cards can be dropped on a column. */
const DRAG_TYPE = 'application/x-parley-ticket';

/** Every ticket the board's column lists hold, and each column's server count; re-read on cache changes. */
function useBoardCache() {
  const qc = useQueryClient();
  const [tick, setTick] = useState(0);
  useEffect(
    () =>
      qc.getQueryCache().subscribe((e) => {
        // Only a change of the cached data: observers come and go on every render (a tick on those would
        // render again, forever, and keep the router from ever showing the next screen).
        if (e.type !== 'added' && e.type !== 'removed' && e.type !== 'updated') return;
        const key = e.query.queryKey;
        if (key[0] === ticketKeys.kanbanAll[0] && key[1] === ticketKeys.kanbanAll[1]) setTick((n) => n + 1);
      }),
    [qc],
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: tick is the cache's version.
  return useMemo(() => {
    const items: TicketListItem[] = [];
    const counts = new Map<number, number>();
    for (const [key, data] of qc.getQueriesData<Pages>({ queryKey: ticketKeys.kanbanAll })) {
      if (!data?.pages?.length) continue;
      counts.set(Number(key[2]), data.pages[0]?.count ?? 0);
      for (const p of data.pages) items.push(...p.data);
    }
    return { items, counts };
  }, [qc, tick]);
}

/** One column's list: the load call for its status code, 30 a page with Show More (TICKET-38). */
function useColumnList(code: number) {
  return useInfiniteQuery({
    queryKey: ticketKeys.kanban(String(code)),
    queryFn: ({ pageParam }) => ticketsApi.load({ ...DEFAULT_FILTERS, status: String(code) }, pageParam),
    initialPageParam: 0,
    getNextPageParam: (last, all) =>
      last.data.length >= TICKET_PAGE_SIZE ? all.reduce((n, p) => n + p.data.length, 0) : undefined,
  });
}

function Card({
  t,
  columns,
  moving,
  onMove,
  onOpen,
}: {
  t: TicketListItem;
  columns: KanbanColumn[];
  moving: boolean;
  onMove(t: TicketListItem, code: number): void;
  onOpen(t: TicketListItem): void;
}) {
  const [dragging, setDragging] = useState(false);
  const displayName = useDisplayName();
  return (
    <Paper
      withBorder
      radius="sm"
      p="xs"
      className={classes.card}
      draggable
      data-testid="kanban-card"
      data-ticket={t.id}
      data-new={t.newMessage || undefined}
      data-dragging={dragging || undefined}
      data-moving={moving || undefined}
      onDragStart={(e: DragEvent) => {
        e.dataTransfer.setData(DRAG_TYPE, String(t.id));
        e.dataTransfer.setData('text/plain', `#${t.ticket_number} ${t.title}`);
        e.dataTransfer.effectAllowed = 'move';
        setDragging(true);
      }}
      onDragEnd={() => setDragging(false)}
    >
      <Stack gap={4}>
        <Group gap={6} wrap="nowrap" justify="space-between">
          <Group gap={6} wrap="nowrap" miw={0}>
            <Text size="xs" c="dimmed" className={classes.num}>
              #{t.ticket_number}
            </Text>
            {t.severity && (
              <Badge size="xs" color={t.severity === 'H' ? 'red' : t.severity === 'M' ? 'orange' : 'gray'}>
                {t.severity}
              </Badge>
            )}
            {t.newMessage && (
              <Badge size="xs" color="indigo" variant="filled" tt="none">
                {t.hasResponded ? 'Replied' : 'New message'}
              </Badge>
            )}
          </Group>
          {/* The keyboard (and touch) way to move a card: the same call as a drop. */}
          {/* biome-ignore lint/a11y/noStaticElementInteractions: only keeps the menu's clicks off the card. */}
          <div onClick={(e) => e.stopPropagation()} onKeyDown={(e) => e.stopPropagation()}>
            <Menu position="bottom-end" withinPortal>
              <Menu.Target>
                <ActionIcon variant="subtle" size="sm" color="gray" aria-label={K.moveMenu(t.ticket_number)}>
                  <IconDots size={14} />
                </ActionIcon>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Label>{K.moveTo}</Menu.Label>
                {columns
                  .filter((c) => c.code !== t.closed)
                  .map((c) => (
                    <Menu.Item key={c.code} onClick={() => onMove(t, c.code)}>
                      {c.name}
                    </Menu.Item>
                  ))}
              </Menu.Dropdown>
            </Menu>
          </div>
        </Group>
        <Anchor
          href={`/ticket/${t.id}`}
          size="sm"
          fw={t.newMessage ? 700 : 500}
          c="var(--mantine-color-text)"
          lineClamp={2}
          draggable={false}
          onClick={(e) => {
            e.preventDefault();
            onOpen(t);
          }}
        >
          {t.title}
        </Anchor>
        <Text size="xs" c="dimmed" lineClamp={1}>
          {channelName(t.channel)} · {t.name || t.email || t.phone || '—'}
        </Text>
        <Group gap={6} justify="space-between" wrap="nowrap">
          <Text size="xs" c="dimmed" lineClamp={1}>
            {t.assignee ? `→ ${assigneeText(assigneeList(t.assignee).map(displayName))}` : ''}
          </Text>
          <Text size="xs" c="dimmed" className={classes.num}>
            {ticketDate(t.updated_at)}
          </Text>
        </Group>
      </Stack>
    </Paper>
  );
}

function Column({
  column,
  columns,
  cards,
  count,
  movingId,
  onMove,
  onOpen,
  byId,
}: {
  column: KanbanColumn;
  columns: KanbanColumn[];
  cards: TicketListItem[];
  count: number | undefined;
  movingId: number | null;
  onMove(t: TicketListItem, code: number): void;
  onOpen(t: TicketListItem): void;
  byId: Map<number, TicketListItem>;
}) {
  const q = useColumnList(column.code);
  const [over, setOver] = useState(false);
  const titleId = `kanban-col-${column.code}`;
  return (
    <section
      className={classes.column}
      aria-labelledby={titleId}
      data-testid="kanban-column"
      data-status={column.code}
      data-over={over || undefined}
      onDragOver={(e) => {
        if (!e.dataTransfer.types.includes(DRAG_TYPE)) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = 'move';
        if (!over) setOver(true);
      }}
      onDragLeave={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setOver(false);
      }}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        const t = byId.get(Number(e.dataTransfer.getData(DRAG_TYPE)));
        if (t) onMove(t, column.code);
      }}
    >
      <Group className={classes.columnHead} justify="space-between" wrap="nowrap">
        <Text fw={600} size="sm" id={titleId}>
          {column.name}
        </Text>
        <Badge size="sm" variant="light" color="gray" data-testid="kanban-count">
          {count ?? '…'}
        </Badge>
      </Group>
      <div className={classes.cards}>
        {cards.map((t) => (
          <Card key={t.id} t={t} columns={columns} moving={movingId === t.id} onMove={onMove} onOpen={onOpen} />
        ))}
        {cards.length === 0 && (
          <Text size="sm" c="dimmed" ta="center" py="md">
            {q.isPending ? K.loading : K.empty}
          </Text>
        )}
        {q.isError && (
          <Text size="sm" c="red" role="alert">
            {(q.error as Error).message}
          </Text>
        )}
        {q.hasNextPage && (
          <Button variant="subtle" size="xs" onClick={() => q.fetchNextPage()} loading={q.isFetchingNextPage}>
            {K.showMore}
          </Button>
        )}
      </div>
    </section>
  );
}

/**
 * `/kanban` (NAV-10, NAV-24: admins only): the tickets as columns by status, the four defaults then the
 * account's custom statuses. Dropping a card on another column (or choosing it in the card's menu) runs the
 * ordinary status change (TICKET-27: saved, a system message posted, `updateTicket` to every agent), shown
 * at once and put back if the server refuses (TICKET-28). Other agents' changes move cards live.
 */
export function KanbanScreen() {
  const { state } = useSession();
  const isAdmin = state.phase === 'signedIn' && state.session.type === 'admin';
  const qc = useQueryClient();
  const navigate = useNavigate();
  const custom = useTicketStatuses();
  const columns = useMemo(() => kanbanColumns(custom), [custom]);
  const { items, counts } = useBoardCache();
  const board = useMemo(() => groupBoard(columns, items), [columns, items]);
  const byId = useMemo(() => new Map(items.map((t) => [t.id, t])), [items]);
  const [error, setError] = useState<string | null>(null);
  // A card moves at once (optimistic); a refusal puts it back.
  const moveCard = useMutation({
    mutationFn: (v: { t: TicketListItem; code: number }) => ticketsApi.setStatus(v.t.id, v.code),
    onMutate: ({ t, code }) => {
      setError(null);
      applyTicketUpdate(qc, { ...t, closed: code });
    },
    onSuccess: (r, { t, code }) => {
      applyTicketUpdate(qc, r.data);
      toast({ message: K.moved(t.ticket_number, columns.find((c) => c.code === code)?.name ?? '?') });
    },
    onError: (err, { t }) => {
      applyTicketUpdate(qc, t);
      // TICKET-28: a refused change shows the ticket as not found (the server's words).
      setError(errorText(err, 'Ticket not found.'));
    },
    // The counts of both columns changed; the lists refetch quietly behind the moved card.
    onSettled: () => void qc.invalidateQueries({ queryKey: ticketKeys.kanbanAll }),
  });
  const movingId = moveCard.isPending ? (moveCard.variables?.t.id ?? null) : null;
  const total = useQuery({
    queryKey: ticketKeys.kanbanTotal,
    queryFn: () => ticketsApi.load({ ...DEFAULT_FILTERS, status: '4' }, 0).then((r) => r.count),
  });

  useRealtimeEvent('updateTicket', (t) => {
    const held = qc
      .getQueriesData<Pages>({ queryKey: ticketKeys.kanbanAll })
      .some(([, d]) => d?.pages.some((p) => p.data.some((x) => x.id === t.id)));
    if (held) applyTicketUpdate(qc, t);
    else void qc.invalidateQueries({ queryKey: ticketKeys.kanban(String(t.closed)) });
  });
  useRealtimeEvent('createTicket', (t) => {
    void qc.invalidateQueries({ queryKey: ticketKeys.kanban(String(t.closed)) });
    void qc.invalidateQueries({ queryKey: ticketKeys.kanbanTotal });
  });

  if (state.phase === 'signedIn' && !isAdmin) return <Navigate to="/" replace />;
  // A workspace without tickets gets the empty state, not four empty columns.
  if (total.data === 0) return <EmptyScreen icon={IconLayoutKanban} title={K.emptyTitle} text={K.emptyText} />;

  function move(t: TicketListItem, code: number) {
    if (t.closed === code || movingId !== null) return;
    moveCard.mutate({ t, code });
  }

  return (
    <Stack gap="md" w="100%" miw={0}>
      <Group justify="space-between" wrap="wrap">
        <Title order={1} size="h2">
          {K.title}
        </Title>
        <Text size="sm" c="dimmed">
          {K.help}
        </Text>
      </Group>
      {error && (
        <Alert color="red" role="alert" withCloseButton onClose={() => setError(null)}>
          {error}
        </Alert>
      )}
      <div className={classes.board} data-testid="kanban-board">
        {columns.map((c) => (
          <Column
            key={c.code}
            column={c}
            columns={columns}
            cards={board.get(c.code) ?? []}
            count={columnCount(c.code, counts, custom)}
            movingId={movingId}
            onMove={(t, code) => void move(t, code)}
            onOpen={(t) => navigate(`/ticket/${t.id}`)}
            byId={byId}
          />
        ))}
      </div>
    </Stack>
  );
}
