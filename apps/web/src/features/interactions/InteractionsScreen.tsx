import {
  Alert,
  Button,
  Center,
  Group,
  Loader,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { CHANNELS, channelPickName, INTERACTION_KINDS, type Interaction, WORKSPACE_CHANNEL } from '@parley/contracts';
import { IconSearch, IconTimeline } from '@tabler/icons-react';
import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { formatDay, isoDay } from '../../lib/dates';
import { errorText } from '../../lib/http';
import { useTeam } from '../../lib/people';
import { interactionKeys } from '../../lib/queryKeys';
import { useRealtimeEvent } from '../../lib/realtime';
import { EmptyScreen } from '../../ui/EmptyScreen';
import { type InteractionFilters, interactionsApi, NO_FILTERS } from './api';
import { InteractionItem } from './InteractionItem';
import { KIND_LABELS, INTERACTIONS_TEXT as T } from './strings';

/** The events after which the newest page may hold something new; read again at most once a second. */
const NEWS = ['newMessage', 'ticketNote', 'updateTicket', 'createTicket', 'liveChatQueue', 'resync'] as const;

const KIND_OPTIONS = [
  { value: '', label: T.allKinds },
  ...INTERACTION_KINDS.map((k) => ({ value: k, label: KIND_LABELS[k] })),
];
const CHANNEL_OPTIONS = [
  { value: '', label: T.allChannels },
  ...Object.keys(CHANNELS)
    .filter((c) => c !== WORKSPACE_CHANNEL)
    .map((c) => ({ value: c, label: channelPickName(c) })),
];

/** Items grouped by the local day they happened, in the list's order. */
function byDay(items: Interaction[]): { day: string; items: Interaction[] }[] {
  const out: { day: string; items: Interaction[] }[] = [];
  for (const x of items) {
    const day = isoDay(x.at);
    const last = out.at(-1);
    if (last && last.day === day) last.items.push(x);
    else out.push({ day, items: [x] });
  }
  return out;
}

/**
 * `/interactions`: every interaction of the team in one timeline, newest first, grouped by day, with filters
 * (kind, channel, agent, date range, text) and "Load more"; new items come in live over the socket.
 */
export function InteractionsScreen() {
  const [filters, setFilters] = useState<InteractionFilters>(NO_FILTERS);
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search, 300);
  const active = useMemo(() => ({ ...filters, q: q.trim() }), [filters, q]);
  const set = (k: keyof InteractionFilters) => (v: string | null) => setFilters((f) => ({ ...f, [k]: v ?? '' }));
  const team = useTeam();
  const agents = useMemo(
    () => [
      { value: '', label: T.everyone },
      ...(team ?? [])
        .map((u) => ({ value: u.username, label: u.name.trim() || u.username }))
        .sort((a, b) => a.label.localeCompare(b.label)),
    ],
    [team],
  );

  const query = useInfiniteQuery({
    queryKey: interactionKeys.list(active),
    queryFn: ({ pageParam }) => interactionsApi.page(active, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next ?? undefined,
    retry: false,
  });
  const items = query.data?.pages.flatMap((p) => p.data) ?? [];
  const groups = byDay(items);
  const filtered = Object.values(active).some((v) => v !== '');

  // Live: read the list again shortly after news (every loaded page, so nothing shifts under the reader).
  const client = useQueryClient();
  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);
  useRealtimeEvent(NEWS, () => {
    if (pending.current) return;
    pending.current = setTimeout(() => {
      pending.current = null;
      void client.invalidateQueries({ queryKey: interactionKeys.all });
    }, 1_000);
  });
  useEffect(
    () => () => {
      if (pending.current) clearTimeout(pending.current);
    },
    [],
  );

  return (
    <Stack gap="md" data-testid="interactions">
      <Group gap="xs" wrap="nowrap">
        <IconTimeline size={26} stroke={1.6} aria-hidden />
        <Title order={1} size="h2">
          {T.title}
        </Title>
      </Group>
      <Text c="dimmed" size="sm" maw="48rem">
        {T.intro}
      </Text>
      <Paper withBorder p="sm" radius="md" component="section" aria-label={T.filters}>
        <SimpleGrid cols={{ base: 2, md: 3, lg: 6 }} spacing="sm">
          <Select
            label={T.kind}
            data={KIND_OPTIONS}
            value={filters.kind}
            onChange={set('kind')}
            allowDeselect={false}
            data-testid="interactions-kind"
          />
          <Select
            label={T.channel}
            data={CHANNEL_OPTIONS}
            value={filters.channel}
            onChange={set('channel')}
            allowDeselect={false}
            searchable
            data-testid="interactions-channel"
          />
          <Select
            label={T.agent}
            data={agents}
            value={filters.agent}
            onChange={set('agent')}
            allowDeselect={false}
            searchable
            data-testid="interactions-agent"
          />
          <TextInput
            label={T.from}
            type="date"
            value={filters.from}
            max={filters.to || undefined}
            onChange={(e) => set('from')(e.currentTarget.value)}
            data-testid="interactions-from"
          />
          <TextInput
            label={T.to}
            type="date"
            value={filters.to}
            min={filters.from || undefined}
            onChange={(e) => set('to')(e.currentTarget.value)}
            data-testid="interactions-to"
          />
          <TextInput
            label={T.search}
            placeholder={T.searchPlaceholder}
            leftSection={<IconSearch size={16} aria-hidden />}
            value={search}
            onChange={(e) => setSearch(e.currentTarget.value)}
            maxLength={200}
            data-testid="interactions-search"
          />
        </SimpleGrid>
        {filtered && (
          <Group justify="flex-end" mt="xs">
            <Button
              variant="subtle"
              size="compact-sm"
              onClick={() => {
                setFilters(NO_FILTERS);
                setSearch('');
              }}
            >
              {T.clear}
            </Button>
          </Group>
        )}
      </Paper>

      {query.isError && (
        <Alert color="red" title={T.failed} data-testid="interactions-error">
          <Stack gap="xs" align="flex-start">
            <Text size="sm">{errorText(query.error, T.failed)}</Text>
            <Button variant="light" size="xs" onClick={() => void query.refetch()}>
              {T.retry}
            </Button>
          </Stack>
        </Alert>
      )}
      {query.isLoading ? (
        <Center py="xl">
          <Loader aria-label={T.loading} />
        </Center>
      ) : !query.isError && items.length === 0 ? (
        filtered ? (
          <Text c="dimmed" ta="center" py="xl" data-testid="interactions-empty">
            {T.empty}
          </Text>
        ) : (
          <EmptyScreen icon={IconTimeline} title={T.title} text={T.emptyAll} />
        )
      ) : (
        <Stack gap="lg" data-testid="interactions-timeline">
          {groups.map((g) => (
            <section key={g.day} aria-label={formatDay(g.items[0]!.at)}>
              <Title order={2} size="h5" mb="xs" data-testid="interactions-day">
                {formatDay(g.items[0]!.at)}
              </Title>
              <Stack gap="xs" component="ol" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
                {g.items.map((x) => (
                  <InteractionItem key={x.key} x={x} />
                ))}
              </Stack>
            </section>
          ))}
          <Center>
            {query.hasNextPage ? (
              <Button
                variant="light"
                onClick={() => void query.fetchNextPage()}
                loading={query.isFetchingNextPage}
                data-testid="interactions-more"
              >
                {T.loadMore}
              </Button>
            ) : (
              <Text size="sm" c="dimmed" data-testid="interactions-end">
                {T.end}
              </Text>
            )}
          </Center>
        </Stack>
      )}
    </Stack>
  );
}
