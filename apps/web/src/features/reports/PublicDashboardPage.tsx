import { Center, Container, Group, Loader, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { DASHBOARD_STRINGS as D, OMNI_STRINGS as O, REPORT_GROUPS } from '@parley/contracts';
import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { formatDuration, formatTime } from '../../lib/dates';
import { reportKeys } from '../../lib/queryKeys';
import { Figure } from '../../ui/Figure';
import { dashboardsApi } from './api';
import { average, PerformanceTable, percent, ReceivedChart } from './parts';

/** A public dashboard's figures are read again this often (a wallboard left open all day). */
const REFRESH_MS = 60_000;

/**
 * SHELL-07, SHELL-08: `/dashboard/{id}`, a public, read-only dashboard by its link's secret, for a wallboard
 * or a manager without an account: the last seven days in aggregate, read again every minute. It has no
 * navigation and no link into the workspace.
 */
export function PublicDashboardPage() {
  const { id = '' } = useParams();
  const q = useQuery({
    queryKey: reportKeys.publicDashboard(id),
    queryFn: () => dashboardsApi.page(id),
    refetchInterval: (query) => (query.state.status === 'error' ? false : REFRESH_MS),
    retry: false,
  });
  if (q.isPending)
    return (
      <Center mih="100dvh">
        <Loader aria-label="Loading" />
      </Center>
    );
  if (!q.data)
    return (
      <Center mih="100dvh" p="md">
        <Stack align="center" ta="center" maw={420}>
          <Title order={1} size="h3">
            Dashboard
          </Title>
          <Text c="dimmed" data-testid="dashboard-missing">
            {D.notFound}
          </Text>
        </Stack>
      </Center>
    );
  const d = q.data;
  return (
    <Container size="xl" py="lg" data-testid="public-dashboard">
      <Stack gap="md">
        <Group justify="space-between" align="flex-end" wrap="wrap">
          <div>
            <Text c="dimmed" size="sm">
              {d.company}
            </Text>
            <Title order={1} size="h2">
              {d.name}
            </Title>
          </div>
          <Text c="dimmed" size="sm">
            {`${D.lastDays} · ${D.updated(formatTime(d.generatedAt))}`}
          </Text>
        </Group>
        <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }} spacing="sm">
          <Figure testId="report-figure" label={O.volume} value={String(d.total.conversations)} />
          <Figure
            testId="report-figure"
            label={`${O.firstResponse} (${O.p50})`}
            value={formatDuration(d.total.firstResponseP50)}
          />
          <Figure
            testId="report-figure"
            label={`${O.resolution} (${O.p50})`}
            value={formatDuration(d.total.resolutionP50)}
          />
          <Figure testId="report-figure" label={O.slaMet} value={percent(d.total.slaMet)} />
          <Figure testId="report-figure" label={O.csat} value={average(d.total.csat)} />
        </SimpleGrid>
        <Paper withBorder radius="md" p="md">
          <Title order={2} size="h4" mb="sm">
            {D.perDay}
          </Title>
          <ReceivedChart buckets={d.days} days />
        </Paper>
        <PerformanceTable
          title={O.perGroup}
          rows={Object.entries(d.groups)
            .filter(([g]) => (REPORT_GROUPS as readonly string[]).includes(g))
            .map(([, p]) => p)}
          testId="report-groups"
        />
      </Stack>
    </Container>
  );
}
