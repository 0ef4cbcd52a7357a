import { Badge, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import type { SessionItem } from '@parley/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { formatDateTime } from '../../lib/dates';
import { settingsKeys } from '../../lib/queryKeys';
import { settingsApi } from './api';
import { t } from './strings';

/** Where a browser name is enough: the full user agent is in the tooltip. */
function deviceOf(ua: string): string {
  const browser = /Edg\//.test(ua)
    ? 'Edge'
    : /Chrome\//.test(ua)
      ? 'Chrome'
      : /Firefox\//.test(ua)
        ? 'Firefox'
        : /Safari\//.test(ua)
          ? 'Safari'
          : ua
            ? ua.split(' ')[0]
            : 'Unknown';
  const os = /Windows/.test(ua)
    ? 'Windows'
    : /Mac OS/.test(ua)
      ? 'macOS'
      : /Android/.test(ua)
        ? 'Android'
        : /iPhone|iPad/.test(ua)
          ? 'iOS'
          : /Linux/.test(ua)
            ? 'Linux'
            : '';
  return os ? `${browser} on ${os}` : (browser ?? 'Unknown');
}

/** My sessions; any but this one can be ended. */
export function SessionsCard() {
  const qc = useQueryClient();
  const q = useQuery({ queryKey: settingsKeys.sessions, queryFn: settingsApi.sessions });
  const end = useMutation({
    mutationFn: (id: number) => settingsApi.endSession(id),
    onSuccess: () => qc.invalidateQueries({ queryKey: settingsKeys.sessions }),
  });
  return (
    <Card withBorder radius="md" padding="lg">
      <Stack>
        <Title order={3} size="h4">
          {t.sessions}
        </Title>
        {q.data?.data.map((s: SessionItem) => (
          <Group key={s.id} justify="space-between" wrap="nowrap" data-testid="session-row">
            <Stack gap={0}>
              <Group gap="xs">
                <Text fw={600} size="sm" title={s.user_agent}>
                  {deviceOf(s.user_agent)}
                </Text>
                {s.current && (
                  <Badge size="sm" variant="dot">
                    {t.thisDevice}
                  </Badge>
                )}
              </Group>
              <Text size="xs" c="dimmed">
                {s.ip} · {t.signedIn} {formatDateTime(s.created_at)} · {t.lastSeen} {formatDateTime(s.last_seen_at)}
              </Text>
            </Stack>
            {!s.current && (
              <Button
                size="xs"
                variant="light"
                color="red"
                loading={end.isPending && end.variables === s.id}
                onClick={() => end.mutate(s.id)}
              >
                {t.endSession}
              </Button>
            )}
          </Group>
        ))}
      </Stack>
    </Card>
  );
}
