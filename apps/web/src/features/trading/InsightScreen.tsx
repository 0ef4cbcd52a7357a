import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import { Alert, Anchor, Group, Loader, Paper, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import type { InsightRow } from '@parley/contracts';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { tradingApi, tradingKeys } from './api';
import { MoodBadge, TradingGate, useRange } from './parts';
import { T } from './strings';

/** `/integrated_insight`: every instrument at once, the most mentioned and the biggest movers (docs/trading.md). */
export function InsightScreen() {
  return (
    <TradingGate title={T.insight}>
      <Insight />
    </TradingGate>
  );
}

const TOP = 10;
const signed = (n: number) => `${n > 0 ? '+' : ''}${(n / 100).toFixed(2)}`;

function Insight() {
  const range = useRange();
  const q = useQuery({
    queryKey: tradingKeys.insight(range.from, range.to),
    queryFn: () => tradingApi.insight(range.from, range.to),
  });
  const link = (r: InsightRow) => `/analyst_intelligence?instrument=${r.instrument.id}&days=${range.days}`;
  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Title order={1} size="h2">
          {T.insight}
        </Title>
        {range.control}
      </Group>
      {q.isPending && <Loader aria-label="Loading" />}
      {q.isError && <Alert color="red">{T.loadFailed}</Alert>}
      {q.data && q.data.top.length === 0 && <Text c="dimmed">{T.none}</Text>}
      {q.data && q.data.top.length > 0 && (
        <SimpleGrid cols={{ base: 1, lg: 2 }}>
          <Paper withBorder p="md">
            <Title order={2} size="h4" mb="sm">
              {T.topMentioned}
            </Title>
            <BarChart
              h={Math.max(160, Math.min(TOP, q.data.top.length) * 32 + 40)}
              data={q.data.top.slice(0, TOP).map((r) => ({ symbol: r.instrument.symbol, mentions: r.mentions }))}
              dataKey="symbol"
              orientation="vertical"
              maxBarWidth={28}
              series={[{ name: 'mentions', label: T.mentions, color: 'blue.6' }]}
              yAxisProps={{ width: 80 }}
              gridAxis="x"
              tickLine="none"
            />
            <Table.ScrollContainer minWidth={320}>
              <Table mt="sm" data-testid="insight-top">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{T.instrument}</Table.Th>
                    <Table.Th>{T.mentions}</Table.Th>
                    <Table.Th>{T.sentiment}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {q.data.top.map((r) => (
                    <Table.Tr key={r.instrument.id} data-testid="insight-row">
                      <Table.Td>
                        <Anchor component={Link} to={link(r)} aria-label={T.open(r.instrument.symbol)}>
                          {r.instrument.symbol}
                        </Anchor>{' '}
                        <Text span size="sm" c="dimmed">
                          {r.instrument.name}
                        </Text>
                      </Table.Td>
                      <Table.Td>{r.mentions}</Table.Td>
                      <Table.Td>
                        <MoodBadge sentiment={r.sentiment} />
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          </Paper>
          <Paper withBorder p="md">
            <Title order={2} size="h4">
              {T.movers}
            </Title>
            <Text size="sm" c="dimmed" mb="sm">
              {T.moversHint}
            </Text>
            {q.data.movers.length === 0 ? (
              <Text c="dimmed">{T.noMovers}</Text>
            ) : (
              <Table.ScrollContainer minWidth={360}>
                <Table data-testid="insight-movers">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>{T.instrument}</Table.Th>
                      <Table.Th>{T.before}</Table.Th>
                      <Table.Th>{T.sentiment}</Table.Th>
                      <Table.Th>{T.change}</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {q.data.movers.map((r) => (
                      <Table.Tr key={r.instrument.id}>
                        <Table.Td>
                          <Anchor component={Link} to={link(r)} aria-label={T.open(r.instrument.symbol)}>
                            {r.instrument.symbol}
                          </Anchor>
                        </Table.Td>
                        <Table.Td>
                          <MoodBadge sentiment={r.before_sentiment} />
                        </Table.Td>
                        <Table.Td>
                          <MoodBadge sentiment={r.sentiment} />
                        </Table.Td>
                        <Table.Td>
                          <Text fw={600} c={r.change! > 0 ? 'teal.8' : r.change! < 0 ? 'red.8' : undefined}>
                            {signed(r.change!)}
                          </Text>
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            )}
          </Paper>
        </SimpleGrid>
      )}
    </Stack>
  );
}
