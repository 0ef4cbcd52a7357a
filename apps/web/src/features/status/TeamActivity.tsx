import { Card, Group, Stack, Text, Title } from '@mantine/core';
import { effectiveStatus, type StatusUpdated } from '@parley/contracts';
import { useState } from 'react';
import { formatTime } from '../../lib/dates';
import { useDisplayName } from '../../lib/people';
import { useRealtimeEvent } from '../../lib/realtime';
import { activitySentence } from './activity';
import { colorOf, t } from './strings';

/** A live feed of `statusUpdated` events from everyone in the account. */
export function TeamActivity() {
  const [items, setItems] = useState<(StatusUpdated & { seq: number })[]>([]);
  const displayName = useDisplayName();
  useRealtimeEvent('statusUpdated', (data, seq) => {
    setItems((xs) => [{ ...data, seq }, ...xs].slice(0, 50));
  });
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
              <Group gap={8} wrap="nowrap">
                <span
                  aria-hidden
                  style={{
                    width: 8,
                    height: 8,
                    borderRadius: 4,
                    flex: 'none',
                    background: `var(--mantine-color-${colorOf(effectiveStatus(e))}-6)`,
                  }}
                />
                <Text size="sm">{activitySentence(e, displayName(e.username))}</Text>
              </Group>
              <Text size="xs" c="dimmed">
                {formatTime(e.since, { seconds: true })}
              </Text>
            </Group>
          ))}
        </Stack>
      </Stack>
    </Card>
  );
}
