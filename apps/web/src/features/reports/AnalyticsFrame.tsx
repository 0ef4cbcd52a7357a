import { Paper, Title, useComputedColorScheme } from '@mantine/core';
import { ANALYTICS_STRINGS } from '@parley/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../lib/http';
import { reportKeys } from '../../lib/queryKeys';
import { useServices } from '../../lib/services';

/**
 * REPORT-25: the installation's analytics page (ANALYTICS_URL) in a frame, opened with a 10-minute token, the
 * feature and the dark flag of the viewer's scheme. Not shown at all where no analytics page is set up.
 */
export function AnalyticsFrame({ feature }: { feature: 'omnichannel' | 'csat' | 'aux' }) {
  const configured = useServices()?.analytics === true;
  const dark = useComputedColorScheme('light') === 'dark';
  const q = useQuery({
    queryKey: reportKeys.analytics(feature, dark),
    queryFn: () => api<{ result: string; url?: string }>('POST', '/api/report/analytics', { feature, dark }),
    enabled: configured,
    // The token lasts 10 minutes: a new address well before it ends.
    staleTime: 5 * 60_000,
    refetchInterval: 5 * 60_000,
  });
  if (!configured || !q.data?.url) return null;
  return (
    <Paper withBorder radius="md" p="md" data-testid="report-analytics">
      <Title order={2} size="h4" mb="sm">
        {ANALYTICS_STRINGS.title}
      </Title>
      <iframe
        title={ANALYTICS_STRINGS.title}
        src={q.data.url}
        style={{ width: '100%', height: 480, border: 0 }}
        sandbox="allow-scripts allow-same-origin allow-popups"
        referrerPolicy="no-referrer"
      />
    </Paper>
  );
}
