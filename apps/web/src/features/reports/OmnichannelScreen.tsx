import { BarChart } from '@mantine/charts';
import { Anchor, Button, Group, Loader, Menu, Paper, Select, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import {
  canViewReports,
  DASHBOARD_STRINGS,
  OMNI_STRINGS as O,
  REPORT_GROUP_NAMES,
  REPORT_GROUPS,
  REPORT_INTERVAL_NAMES,
  REPORT_INTERVALS,
  type ReportInterval,
  REPORT_STRINGS as S,
} from '@parley/contracts';
import { IconChartBar, IconDownload, IconShare } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { formatDuration } from '../../lib/dates';
import { reportKeys } from '../../lib/queryKeys';
import { useSession } from '../../lib/session';
import { EmptyScreen } from '../../ui/EmptyScreen';
import { Figure } from '../../ui/Figure';
import { AnalyticsFrame } from './AnalyticsFrame';
import { type ReportDays, reportsApi } from './api';
import { average, GROUP_COLORS, PerformanceTable, percent, ReceivedChart } from './parts';
import { ReportRangeInputs, useReportRange } from './ReportRange';
import { ShareDashboards } from './ShareDashboards';

const STATUS_COLORS = ['teal.6', 'yellow.6', 'red.6', 'blue.6', 'grape.6', 'orange.6', 'cyan.6', 'pink.6', 'gray.6'];
const HOUR_MS = 3_600_000;

/**
 * REPORT-03, REPORT-13..REPORT-23: the omnichannel report at `/report/omnichannel`. Over a range and a step it
 * draws the conversations received per chart group, sums up how the team did (volume, first response and
 * resolution p50/p90, SLA met, CSAT) in all, by channel group, agent and team, each agent's time per status
 * and the ratings; everything downloads as CSV or XLSX through a short-lived export link. A failed load shows
 * no error (REPORT-27): that part stays empty.
 */
export function OmnichannelScreen() {
  const { state } = useSession();
  const session = state.phase === 'signedIn' ? state.session : null;
  const allowed = session !== null && canViewReports(session);
  const range = useReportRange();
  const [interval, setInterval] = useState<ReportInterval>(60);
  const [sharing, setSharing] = useState(false);
  const days: ReportDays | null = range.range;
  const enabled = allowed && days !== null;

  const intervals = useQuery({
    queryKey: reportKeys.omni('interval', { ...days, interval }),
    queryFn: () => reportsApi.interval(days!, interval),
    enabled,
    retry: false,
  });
  const performance = useQuery({
    queryKey: reportKeys.omni('performance', { ...days }),
    queryFn: () => reportsApi.performance(days!),
    enabled,
    retry: false,
  });
  const aux = useQuery({
    queryKey: reportKeys.omni('aux', { ...days }),
    queryFn: () => reportsApi.aux(days!),
    enabled,
    retry: false,
  });
  const csat = useQuery({
    queryKey: reportKeys.omni('csat', { ...days }),
    queryFn: () => reportsApi.csat(days!),
    enabled,
    retry: false,
  });

  if (session && !allowed) return <EmptyScreen icon={IconChartBar} title={O.title} text={S.notAllowed} />;

  const download = async (file: string) => {
    if (!days) return;
    window.location.assign(await reportsApi.exportLink(days, interval, file));
  };
  const total = performance.data?.total;

  return (
    <Stack gap="md" data-testid="omnichannel-report">
      <ShareDashboards opened={sharing} onClose={() => setSharing(false)} />
      <Group justify="space-between" align="flex-end" wrap="wrap">
        <Title order={1} size="h2">
          {O.title}
        </Title>
        <Group gap="md">
          <Anchor component={Link} to="/report/all/all" size="sm">
            {O.ticketSummary}
          </Anchor>
          <Button
            variant="subtle"
            size="compact-sm"
            leftSection={<IconShare size={16} />}
            onClick={() => setSharing(true)}
            data-testid="dashboard-open"
          >
            {DASHBOARD_STRINGS.share}
          </Button>
        </Group>
      </Group>
      <Paper withBorder radius="md" p="md">
        <Group align="flex-start" gap="sm" wrap="wrap">
          <ReportRangeInputs range={range} />
          <Select
            label={O.interval}
            data={REPORT_INTERVALS.map((i) => ({ value: String(i), label: REPORT_INTERVAL_NAMES[i] }))}
            value={String(interval)}
            onChange={(v) => v && setInterval(Number(v) as ReportInterval)}
            allowDeselect={false}
            w={{ base: '100%', xs: 150 }}
            data-testid="report-interval"
          />
          <Menu position="bottom-end">
            <Menu.Target>
              <Button
                variant="light"
                leftSection={<IconDownload size={16} />}
                mt={{ base: 0, xs: 25 }}
                disabled={!days}
                data-testid="report-export"
              >
                {O.export}
              </Button>
            </Menu.Target>
            <Menu.Dropdown>
              <Menu.Item onClick={() => void download('report.xlsx')}>{O.exportXlsx}</Menu.Item>
              <Menu.Item onClick={() => void download('conversations.csv')}>{`${O.volume} (${O.exportCsv})`}</Menu.Item>
              <Menu.Item onClick={() => void download('intervals.csv')}>{`${O.interval} (${O.exportCsv})`}</Menu.Item>
            </Menu.Dropdown>
          </Menu>
        </Group>
      </Paper>

      <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }} spacing="sm" data-testid="report-totals">
        <Figure testId="report-figure" label={O.volume} value={total ? String(total.conversations) : ''} />
        <Figure
          testId="report-figure"
          label={`${O.firstResponse} (${O.p50})`}
          value={formatDuration(total?.firstResponseP50)}
        />
        <Figure
          testId="report-figure"
          label={`${O.resolution} (${O.p50})`}
          value={formatDuration(total?.resolutionP50)}
        />
        <Figure testId="report-figure" label={O.slaMet} value={percent(total?.slaMet ?? null)} />
        <Figure testId="report-figure" label={O.csat} value={average(total?.csat ?? null)} />
      </SimpleGrid>

      <Paper withBorder radius="md" p="md">
        <Group justify="space-between" mb="sm">
          <Title order={2} size="h4">
            {O.received}
          </Title>
          {(intervals.isFetching || performance.isFetching) && <Loader size="xs" aria-label="Loading" />}
        </Group>
        {intervals.data && <ReceivedChart buckets={intervals.data.data} days={interval === 1440} />}
      </Paper>

      <PerformanceTable
        title={O.perGroup}
        rows={Object.entries(performance.data?.groups ?? {})
          .filter(([g]) => (REPORT_GROUPS as readonly string[]).includes(g))
          .map(([, p]) => p)}
        testId="report-groups"
      />
      <PerformanceTable
        title={O.perAgent}
        rows={Object.values(performance.data?.agents ?? {})}
        testId="report-agents"
      />
      <PerformanceTable title={O.perTeam} rows={Object.values(performance.data?.teams ?? {})} testId="report-teams" />
      {performance.data?.estimated && (
        <Text size="sm" c="dimmed" data-testid="report-estimated">
          {O.estimated}
        </Text>
      )}

      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <Paper withBorder radius="md" p="md" data-testid="report-aux">
          <Title order={2} size="h4" mb="sm">
            {O.activity}
          </Title>
          <AuxChart data={aux.data?.data ?? null} />
        </Paper>
        <Paper withBorder radius="md" p="md" data-testid="report-csat">
          <Group justify="space-between" mb="sm">
            <Title order={2} size="h4">
              {O.satisfaction}
            </Title>
            {csat.data && csat.data.count > 0 && (
              <Text size="sm" c="dimmed">
                {`${O.average} ${average(csat.data.average)} (${csat.data.count})`}
              </Text>
            )}
          </Group>
          {csat.data && csat.data.count === 0 && <Text c="dimmed">{O.noRatings}</Text>}
          {csat.data && csat.data.count > 0 && (
            <BarChart
              h={220}
              data={[1, 2, 3, 4, 5].map((n) => {
                const row: Record<string, string | number> = { rating: O.rating(n) };
                for (const g of REPORT_GROUPS) row[g] = csat.data.data[g]?.[String(n)] ?? 0;
                return row;
              })}
              dataKey="rating"
              type="stacked"
              withLegend
              legendProps={{ verticalAlign: 'bottom' }}
              series={REPORT_GROUPS.filter((g) => csat.data.data[g]).map((g) => ({
                name: g,
                label: REPORT_GROUP_NAMES[g],
                color: GROUP_COLORS[g],
              }))}
              tickLine="none"
              gridAxis="y"
            />
          )}
        </Paper>
      </SimpleGrid>
      <AnalyticsFrame feature="omnichannel" />
    </Stack>
  );
}

/** REPORT-16: each agent's hours per status in the range, as stacked bars. */
function AuxChart({ data }: { data: Record<string, { name: string; statuses: Record<string, number> }> | null }) {
  if (!data) return null;
  const users = Object.values(data);
  if (users.length === 0) return <Text c="dimmed">{O.noActivity}</Text>;
  const statuses = [...new Set(users.flatMap((u) => Object.keys(u.statuses)))].sort();
  const rows = users.map((u) => {
    const row: Record<string, string | number> = { name: u.name };
    for (const s of statuses) row[s] = (u.statuses[s] ?? 0) / HOUR_MS;
    return row;
  });
  return (
    <BarChart
      h={Math.max(160, users.length * 36 + 80)}
      data={rows}
      dataKey="name"
      orientation="vertical"
      type="stacked"
      withLegend
      legendProps={{ verticalAlign: 'bottom' }}
      series={statuses.map((s, i) => ({ name: s, color: STATUS_COLORS[i % STATUS_COLORS.length]! }))}
      valueFormatter={(v) => formatDuration(v * HOUR_MS)}
      yAxisProps={{ width: 110 }}
      tickLine="none"
      gridAxis="x"
    />
  );
}
