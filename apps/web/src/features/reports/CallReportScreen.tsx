import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import { Anchor, Button, Group, Loader, Paper, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import {
  CALL_REPORT_STRINGS as C,
  type CallFigures,
  canViewReports,
  OMNI_STRINGS as O,
  REPORT_STRINGS as S,
} from '@parley/contracts';
import { IconDownload, IconPhone } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { formatDay, formatDuration } from '../../lib/dates';
import { reportKeys } from '../../lib/queryKeys';
import { useSession } from '../../lib/session';
import { EmptyScreen } from '../../ui/EmptyScreen';
import { Figure } from '../../ui/Figure';
import { reportsApi } from './api';
import { ReportRangeInputs, useReportRange } from './ReportRange';

const seconds = (s: number | null) => (s === null ? '' : formatDuration(s * 1000));

/**
 * REPORT-03: the call report at `/report/call`. Over a range of the user's days it sums up the calls that
 * started in it, from the stored calls: how many, inbound and outbound, answered and missed, talk time; the
 * calls per day as a chart; and the same figures per agent and per number called (DID). The calls download as
 * CSV through a short-lived export link. A failed load shows no error (REPORT-27): the page stays empty.
 */
export function CallReportScreen() {
  const { state } = useSession();
  const session = state.phase === 'signedIn' ? state.session : null;
  const allowed = session !== null && canViewReports(session);
  const range = useReportRange();
  const days = range.range;
  const report = useQuery({
    queryKey: reportKeys.omni('call', { ...days }),
    queryFn: () => reportsApi.calls(days!),
    enabled: allowed && days !== null,
    retry: false,
  });

  if (session && !allowed) return <EmptyScreen icon={IconPhone} title={C.title} text={S.notAllowed} />;

  const download = async () => {
    if (!days) return;
    window.location.assign(await reportsApi.exportLink(days, 1440, 'calls.csv'));
  };
  const total = report.data?.total;
  const chart = (report.data?.days ?? []).map((d) => ({ ...d, day: formatDay(d.day) }));

  return (
    <Stack gap="md" data-testid="call-report">
      <Group justify="space-between" align="flex-end" wrap="wrap">
        <Title order={1} size="h2">
          {C.title}
        </Title>
        <Anchor component={Link} to="/report/omnichannel" size="sm">
          {O.title}
        </Anchor>
      </Group>
      <Paper withBorder radius="md" p="md">
        <Group align="flex-start" gap="sm" wrap="wrap">
          <ReportRangeInputs range={range} />
          <Button
            variant="light"
            leftSection={<IconDownload size={16} />}
            mt={{ base: 0, xs: 25 }}
            disabled={!days}
            onClick={() => void download()}
            data-testid="call-report-export"
          >
            {C.exportCsv}
          </Button>
        </Group>
      </Paper>

      <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }} spacing="sm" data-testid="call-report-totals">
        <Figure testId="call-figure" label={C.calls} value={total ? String(total.calls) : ''} />
        <Figure testId="call-figure" label={C.inbound} value={total ? String(total.inbound) : ''} />
        <Figure testId="call-figure" label={C.outbound} value={total ? String(total.outbound) : ''} />
        <Figure testId="call-figure" label={C.answered} value={total ? String(total.answered) : ''} />
        <Figure testId="call-figure" label={C.missed} value={total ? String(total.missed) : ''} />
        <Figure testId="call-figure" label={C.averageTalk} value={seconds(total?.averageSeconds ?? null)} />
      </SimpleGrid>

      <Paper withBorder radius="md" p="md">
        <Group justify="space-between" mb="sm">
          <Title order={2} size="h4">
            {C.perDay}
          </Title>
          {report.isFetching && <Loader size="xs" aria-label="Loading" />}
        </Group>
        {total && total.calls === 0 && (
          <Text c="dimmed" data-testid="call-report-empty">
            {C.noCalls}
          </Text>
        )}
        {total && total.calls > 0 && (
          <BarChart
            h={260}
            data={chart}
            dataKey="day"
            type="stacked"
            withLegend
            legendProps={{ verticalAlign: 'bottom' }}
            series={[
              { name: 'inbound', label: C.inbound, color: 'blue.6' },
              { name: 'outbound', label: C.outbound, color: 'teal.6' },
            ]}
            tickLine="none"
            gridAxis="y"
            data-testid="call-report-chart"
          />
        )}
      </Paper>

      <CallTable
        title={C.perAgent}
        testId="call-report-agents"
        head={C.agent}
        rows={(report.data?.agents ?? []).map((a) => ({
          key: a.username || '-',
          label: (
            <>
              <Text size="sm" fw={500}>
                {a.name}
              </Text>
              {a.username && (
                <Text size="xs" c="dimmed">
                  {a.username}
                </Text>
              )}
            </>
          ),
          f: a,
        }))}
      />
      <CallTable
        title={C.perNumber}
        testId="call-report-dids"
        head={C.number}
        rows={(report.data?.dids ?? []).map((d) => ({
          key: d.did || '-',
          label: (
            <>
              <Text size="sm" fw={500}>
                {d.did || C.noDid}
              </Text>
              {d.description && (
                <Text size="xs" c="dimmed">
                  {d.description}
                </Text>
              )}
            </>
          ),
          f: d,
        }))}
      />
    </Stack>
  );
}

/** Calls, inbound, outbound, answered, missed, talk time, average and longest per row. */
function CallTable({
  title,
  testId,
  head,
  rows,
}: {
  title: string;
  testId: string;
  head: string;
  rows: { key: string; label: ReactNode; f: CallFigures }[];
}) {
  if (rows.length === 0) return null;
  return (
    <Paper withBorder radius="md" p="md" data-testid={testId}>
      <Title order={2} size="h4" mb="sm">
        {title}
      </Title>
      <Table.ScrollContainer minWidth={760}>
        <Table verticalSpacing={6}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{head}</Table.Th>
              <Table.Th ta="right">{C.calls}</Table.Th>
              <Table.Th ta="right">{C.inbound}</Table.Th>
              <Table.Th ta="right">{C.outbound}</Table.Th>
              <Table.Th ta="right">{C.answered}</Table.Th>
              <Table.Th ta="right">{C.missed}</Table.Th>
              <Table.Th ta="right">{C.talkTime}</Table.Th>
              <Table.Th ta="right">{C.averageTalk}</Table.Th>
              <Table.Th ta="right">{C.longest}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map(({ key, label, f }) => (
              <Table.Tr key={key} data-testid="call-report-row">
                <Table.Td>{label}</Table.Td>
                <Table.Td ta="right">{f.calls}</Table.Td>
                <Table.Td ta="right">{f.inbound}</Table.Td>
                <Table.Td ta="right">{f.outbound}</Table.Td>
                <Table.Td ta="right">{f.answered}</Table.Td>
                <Table.Td ta="right">{f.missed}</Table.Td>
                <Table.Td ta="right">{seconds(f.talkSeconds)}</Table.Td>
                <Table.Td ta="right">{seconds(f.averageSeconds)}</Table.Td>
                <Table.Td ta="right">{seconds(f.longestSeconds)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}
