import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import { Paper, Table, Text, Title } from '@mantine/core';
import {
  type IntervalAnswer,
  OMNI_STRINGS as O,
  type Performance,
  REPORT_GROUP_NAMES,
  REPORT_GROUPS,
  type ReportGroup,
} from '@parley/contracts';
import { formatDay, formatDuration } from '../../lib/dates';

/** One colour per chart group, readable on light and dark. */
export const GROUP_COLORS: Record<ReportGroup, string> = {
  email: 'blue.6',
  chatbot: 'grape.6',
  livechat: 'teal.6',
  social: 'orange.6',
  mobile: 'green.6',
  call: 'red.6',
  manual: 'gray.6',
};

export const percent = (share: number | null) => (share === null ? '' : `${Math.round(share * 1000) / 10}%`);
export const average = (n: number | null) => (n === null ? '' : n.toFixed(2));

/** Conversations received per bucket, stacked by chart group (only groups with any in the legend). */
export function ReceivedChart({ buckets, days }: { buckets: IntervalAnswer['data']; days: boolean }) {
  const data = Object.entries(buckets).map(([start, groups]) => {
    // The bucket's start comes as data ("YYYY-MM-DD HH:mm"); the axis shows it as every date reads.
    const day = formatDay(start);
    const row: Record<string, string | number> = { start: days ? day : `${day} ${start.slice(11, 16)}` };
    for (const g of REPORT_GROUPS) row[g] = groups[g]?.received ?? 0;
    return row;
  });
  const used = REPORT_GROUPS.filter((g) => data.some((r) => Number(r[g]) > 0));
  if (used.length === 0)
    return (
      <Text c="dimmed" data-testid="report-no-data">
        {O.noData}
      </Text>
    );
  return (
    <BarChart
      h={280}
      data={data}
      dataKey="start"
      type="stacked"
      withLegend
      legendProps={{ verticalAlign: 'bottom' }}
      series={used.map((g) => ({ name: g, label: REPORT_GROUP_NAMES[g], color: GROUP_COLORS[g] }))}
      tickLine="none"
      gridAxis="y"
      data-testid="report-chart"
    />
  );
}

/** Volume, response and resolution p50/p90, SLA met and CSAT per row (a group, an agent or a team). */
export function PerformanceTable({ title, rows, testId }: { title: string; rows: Performance[]; testId: string }) {
  if (rows.length === 0) return null;
  const sorted = [...rows].sort((a, b) => b.conversations - a.conversations || a.name.localeCompare(b.name));
  return (
    <Paper withBorder radius="md" p="md" data-testid={testId}>
      <Title order={2} size="h4" mb="sm">
        {title}
      </Title>
      <Table.ScrollContainer minWidth={760}>
        <Table verticalSpacing={6}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th />
              <Table.Th ta="right">{O.volume}</Table.Th>
              <Table.Th ta="right">{`${O.firstResponse} ${O.p50}`}</Table.Th>
              <Table.Th ta="right">{`${O.firstResponse} ${O.p90}`}</Table.Th>
              <Table.Th ta="right">{`${O.resolution} ${O.p50}`}</Table.Th>
              <Table.Th ta="right">{`${O.resolution} ${O.p90}`}</Table.Th>
              <Table.Th ta="right">{O.reopened}</Table.Th>
              <Table.Th ta="right">{O.slaMet}</Table.Th>
              <Table.Th ta="right">{O.csat}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {sorted.map((p) => (
              <Table.Tr key={p.name} data-testid="report-performance-row">
                <Table.Td fw={500}>{p.name}</Table.Td>
                <Table.Td ta="right">{p.conversations}</Table.Td>
                <Table.Td ta="right">{formatDuration(p.firstResponseP50)}</Table.Td>
                <Table.Td ta="right">{formatDuration(p.firstResponseP90)}</Table.Td>
                <Table.Td ta="right">{formatDuration(p.resolutionP50)}</Table.Td>
                <Table.Td ta="right">{formatDuration(p.resolutionP90)}</Table.Td>
                <Table.Td ta="right">{p.reopened}</Table.Td>
                <Table.Td ta="right">{percent(p.slaMet)}</Table.Td>
                <Table.Td ta="right">{average(p.csat)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}
