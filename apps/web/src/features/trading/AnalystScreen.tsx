import '@mantine/charts/styles.css';
import { BarChart, LineChart } from '@mantine/charts';
import {
  ActionIcon,
  Alert,
  Anchor,
  Button,
  Group,
  Loader,
  Menu,
  Modal,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { type AnalystAnswer, type Instrument, TRADING_MENTION_PAGE } from '@parley/contracts';
import { IconDots, IconPencil, IconPlus, IconTrash } from '@tabler/icons-react';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { formatDateTime } from '../../lib/dates';
import { useWrite } from '../../lib/useWrite';
import { tradingApi, tradingKeys } from './api';
import { InstrumentModal } from './InstrumentModal';
import { channelName, MoodBadge, SERIES_COLORS, TradingGate, useRange } from './parts';
import { T } from './strings';

/** `/analyst_intelligence` and its drill-down `/analyst_intelligence/:channel/:id` (docs/trading.md). */
export function AnalystScreen() {
  return (
    <TradingGate title={T.analyst}>
      <Analyst />
    </TradingGate>
  );
}

function Analyst() {
  const { channel, id } = useParams();
  if (channel && id && /^\d+$/.test(id)) return <DrillDown channel={channel} id={Number(id)} />;
  return <Overview />;
}

function Overview() {
  const [params, setParams] = useSearchParams();
  const range = useRange();
  const list = useQuery({ queryKey: tradingKeys.instruments, queryFn: tradingApi.instruments });
  const [editing, setEditing] = useState<Instrument | null | undefined>(undefined);
  const [removing, setRemoving] = useState<Instrument | null>(null);
  const instruments = list.data ?? [];
  const asked = Number(params.get('instrument'));
  const chosen = instruments.find((i) => i.id === asked) ?? instruments[0];
  const choose = (id: number) =>
    setParams(
      (p) => {
        p.set('instrument', String(id));
        return p;
      },
      { replace: true },
    );

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Title order={1} size="h2">
          {T.analyst}
        </Title>
        <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing(null)} data-testid="instrument-add">
          {T.addInstrument}
        </Button>
      </Group>
      {list.isPending && <Loader aria-label="Loading" />}
      {list.isError && <Alert color="red">{T.loadFailed}</Alert>}
      {list.isSuccess && instruments.length === 0 && (
        <Text c="dimmed" data-testid="trading-none">
          {T.none}
        </Text>
      )}
      {chosen && (
        <>
          <Group gap="sm" wrap="wrap" align="flex-end">
            <Select
              label={T.instrument}
              data={instruments.map((i) => ({ value: String(i.id), label: `${i.symbol} · ${i.name}` }))}
              value={String(chosen.id)}
              onChange={(v) => v && choose(Number(v))}
              allowDeselect={false}
              searchable
              w={{ base: '100%', xs: 280 }}
              data-testid="instrument-picker"
            />
            <Menu position="bottom-end">
              <Menu.Target>
                <ActionIcon variant="default" size="lg" aria-label={T.manage}>
                  <IconDots size={18} />
                </ActionIcon>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Item leftSection={<IconPencil size={14} />} onClick={() => setEditing(chosen)}>
                  {T.editInstrument}
                </Menu.Item>
                <Menu.Item color="red" leftSection={<IconTrash size={14} />} onClick={() => setRemoving(chosen)}>
                  {T.removeInstrument}
                </Menu.Item>
              </Menu.Dropdown>
            </Menu>
            {range.control}
          </Group>
          <InstrumentView instrument={chosen} from={range.from} to={range.to} days={range.days} />
        </>
      )}
      <InstrumentModal
        opened={editing !== undefined}
        instrument={editing ?? null}
        onClose={() => setEditing(undefined)}
        onSaved={(id) => {
          setEditing(undefined);
          choose(id);
        }}
      />
      <RemoveModal instrument={removing} onClose={() => setRemoving(null)} />
    </Stack>
  );
}

function RemoveModal({ instrument, onClose }: { instrument: Instrument | null; onClose: () => void }) {
  const w = useWrite({ invalidate: tradingKeys.all });
  return (
    <Modal opened={instrument !== null} onClose={onClose} title={T.removeInstrument}>
      <Stack gap="sm">
        <Text>{instrument ? T.removeConfirm(instrument.symbol) : ''}</Text>
        {w.error && <Alert color="red">{w.error}</Alert>}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {T.cancel}
          </Button>
          <Button
            color="red"
            loading={w.busy}
            onClick={async () => {
              if (instrument && (await w.run(() => tradingApi.remove(instrument.id)))) onClose();
            }}
          >
            {T.remove}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function InstrumentView({
  instrument,
  from,
  to,
  days,
}: {
  instrument: Instrument;
  from: string;
  to: string;
  days: number;
}) {
  const q = useQuery({
    queryKey: tradingKeys.analyst(instrument.id, from, to),
    queryFn: () => tradingApi.analyst(instrument.id, from, to),
  });
  if (q.isPending) return <Loader aria-label="Loading" />;
  if (q.isError) return <Alert color="red">{T.loadFailed}</Alert>;
  const a = q.data;
  return (
    <Stack gap="md" data-testid="analyst-view">
      <Group gap="sm">
        <Text fw={600} data-testid="analyst-total">
          {T.total(a.total)}
        </Text>
        <MoodBadge sentiment={a.sentiment} />
      </Group>
      {a.total === 0 ? (
        <Text c="dimmed">{T.noMentions}</Text>
      ) : (
        <>
          <SimpleGrid cols={{ base: 1, lg: 2 }}>
            <Paper withBorder p="md">
              <Title order={2} size="h4" mb="sm">
                {T.perDay}
              </Title>
              <MentionsChart a={a} />
            </Paper>
            <Paper withBorder p="md">
              <Title order={2} size="h4" mb="sm">
                {T.sentimentPerDay}
              </Title>
              <LineChart
                h={220}
                data={a.days.map((d) => ({
                  day: d.day.slice(5),
                  sentiment: d.sentiment === null ? null : d.sentiment / 100,
                }))}
                dataKey="day"
                series={[{ name: 'sentiment', label: T.sentiment, color: 'teal.6' }]}
                connectNulls
                yAxisProps={{ domain: [-1, 1] }}
                referenceLines={[{ y: 0, color: 'gray.5' }]}
                curveType="linear"
              />
            </Paper>
          </SimpleGrid>
          <Paper withBorder p="md">
            <Title order={2} size="h4" mb="sm">
              {T.perChannel}
            </Title>
            <Table.ScrollContainer minWidth={300}>
              <Table data-testid="analyst-channels">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{T.channel}</Table.Th>
                    <Table.Th>{T.mentions}</Table.Th>
                    <Table.Th>{T.sentiment}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {a.channels.map((c) => (
                    <Table.Tr key={c.channel} data-testid="analyst-channel">
                      <Table.Td>
                        <Anchor
                          component={Link}
                          to={`/analyst_intelligence/${encodeURIComponent(c.channel)}/${instrument.id}?days=${days}`}
                          aria-label={T.messagesOn(channelName(c.channel))}
                          data-testid="analyst-drill"
                        >
                          {channelName(c.channel)}
                        </Anchor>
                      </Table.Td>
                      <Table.Td>{c.mentions}</Table.Td>
                      <Table.Td>
                        <MoodBadge sentiment={c.sentiment} />
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          </Paper>
        </>
      )}
    </Stack>
  );
}

function MentionsChart({ a }: { a: AnalystAnswer }) {
  const channels = a.channels.map((c) => c.channel);
  const data = a.days.map((d) => {
    const row: Record<string, string | number> = { day: d.day.slice(5) };
    for (const c of channels) row[c] = 0;
    for (const b of a.buckets) if (b.day === d.day) row[b.channel] = b.mentions;
    return row;
  });
  return (
    <BarChart
      h={220}
      data={data}
      dataKey="day"
      type="stacked"
      withLegend
      legendProps={{ verticalAlign: 'bottom' }}
      series={channels.map((c, i) => ({
        name: c,
        label: channelName(c),
        color: SERIES_COLORS[i % SERIES_COLORS.length]!,
      }))}
      tickLine="none"
    />
  );
}

function DrillDown({ channel, id }: { channel: string; id: number }) {
  const range = useRange();
  const q = useInfiniteQuery({
    queryKey: tradingKeys.mentions(channel, id, range.from, range.to),
    queryFn: ({ pageParam }) => tradingApi.mentions(channel, id, range.from, range.to, pageParam),
    initialPageParam: 0,
    getNextPageParam: (last, pages) =>
      last.data.length >= TRADING_MENTION_PAGE ? pages.reduce((n, p) => n + p.data.length, 0) : undefined,
  });
  const first = q.data?.pages[0];
  const rows = q.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <Stack gap="md">
      <Anchor component={Link} to={`/analyst_intelligence?instrument=${id}&days=${range.days}`} size="sm">
        ← {T.back}
      </Anchor>
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Title order={1} size="h2">
          {first ? T.on(first.instrument.symbol, channelName(channel)) : T.analyst}
        </Title>
        {range.control}
      </Group>
      {q.isPending && <Loader aria-label="Loading" />}
      {q.isError && <Alert color="red">{T.loadFailed}</Alert>}
      {first && (
        <Text c="dimmed" data-testid="drill-total">
          {T.total(first.total)}
        </Text>
      )}
      {first && first.total === 0 && <Text c="dimmed">{T.noMentions}</Text>}
      <Stack gap="sm">
        {rows.map((m) => (
          <Paper key={m.message_id} withBorder p="sm" data-testid="drill-mention">
            <Group justify="space-between" gap="xs" wrap="wrap">
              <Text fw={600} size="sm">
                {m.customer || '—'}
              </Text>
              <Group gap="xs">
                <MoodBadge sentiment={m.sentiment} />
                <Text size="xs" c="dimmed">
                  {formatDateTime(m.at)}
                </Text>
              </Group>
            </Group>
            <Text size="sm" mt={4} data-testid="drill-text" style={{ overflowWrap: 'anywhere' }}>
              {m.text}
            </Text>
            <Anchor component={Link} to={`/ticket/${m.ticket_id}`} size="sm" data-testid="drill-ticket">
              {T.ticket(m.ticket_number)}
            </Anchor>
          </Paper>
        ))}
      </Stack>
      {q.hasNextPage && (
        <Button variant="subtle" onClick={() => q.fetchNextPage()} loading={q.isFetchingNextPage} w="fit-content">
          {T.showMore}
        </Button>
      )}
    </Stack>
  );
}
