import { Badge, Card, Group, Stack, Text, Title } from '@mantine/core';
import { effectiveStatus, type StatusUpdated, statusLabel } from '@parley/contracts';
import dayjs from 'dayjs';
import { useEffect, useState } from 'react';
import { realtime } from '../../lib/realtime';
import { colorOf, t } from './strings';

/** A live feed of `statusUpdated` events from everyone in the account. */
export function TeamActivity() {
  const [items, setItems] = useState<(StatusUpdated & { seq: number })[]>([]);
  useEffect(
    () =>
      realtime.on('statusUpdated', (data, seq) => {
        setItems((xs) => [{ ...(data as StatusUpdated), seq }, ...xs].slice(0, 50));
      }),
    [],
  );
  return (
    <Card withBorder radius="md" padding="lg">
      <Stack>
        <Title order={3} size="h4">
          {t.teamActivity}
        </Title>
        {items.length === 0 && (
          <Text c="dimmed" size="sm">
            {t.noActivity}
          </Text>
        )}
        <Stack gap="xs" data-testid="team-activity">
          {items.map((e) => (
            <Group key={e.seq} justify="space-between" wrap="nowrap" data-testid="activity-item">
              <Text size="sm">
                <b>{e.username}</b> is now{' '}
                <Badge color={colorOf(effectiveStatus(e))} variant="dot">
                  {statusLabel(effectiveStatus(e))}
                </Badge>
                {e.reason && <Text span c="dimmed">{` ${e.reason}`}</Text>}
              </Text>
              <Text size="xs" c="dimmed">
                {dayjs(e.since).format('HH:mm:ss')}
              </Text>
            </Group>
          ))}
        </Stack>
      </Stack>
    </Card>
  );
}
