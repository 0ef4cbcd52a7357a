import { Group, Paper, Stack, Text, Title } from '@mantine/core';
import { SUPERVISORY_STRINGS as S, type SupervisoryQueue } from '@parley/contracts';
import { elapsed } from '../../lib/dates';

/** Digits of equal width, so a ticking duration does not jiggle. */
const TABULAR = { fontVariantNumeric: 'tabular-nums' } as const;

/** Waiting live-chat visitors: how many and the longest wait, then per department. */
export function QueueCard({ queue, now }: { queue: SupervisoryQueue; now: number }) {
  return (
    <Paper withBorder radius="md" p="md" data-testid="sup-queue">
      <Title order={2} size="h4" mb="sm">
        {S.queues}
      </Title>
      <Group grow gap="sm" mb="md">
        <Stack gap={0}>
          <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
            {S.waiting}
          </Text>
          <Text size="xl" fw={700} data-testid="sup-queue-waiting">
            {queue.waiting}
          </Text>
        </Stack>
        <Stack gap={0}>
          <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
            {S.longestWait}
          </Text>
          <Text size="xl" fw={700} style={TABULAR} data-testid="sup-queue-oldest">
            {queue.oldestQueuedAt === null ? '—' : elapsed(queue.oldestQueuedAt, now)}
          </Text>
        </Stack>
      </Group>
      {queue.departments.length === 0 ? (
        <Text c="dimmed" size="sm">
          {S.nobodyWaiting}
        </Text>
      ) : (
        <Stack gap={0}>
          <Group justify="space-between" py={4} wrap="nowrap">
            <Text size="xs" c="dimmed" fw={600}>
              {S.department}
            </Text>
            <Group gap="lg" wrap="nowrap">
              <Text size="xs" c="dimmed" fw={600} w={56} ta="right">
                {S.waiting}
              </Text>
              <Text size="xs" c="dimmed" fw={600} w={84} ta="right">
                {S.longestWait}
              </Text>
            </Group>
          </Group>
          {queue.departments.map((d) => (
            <Group
              key={d.departmentId ?? 'none'}
              justify="space-between"
              py={6}
              wrap="nowrap"
              style={{ borderTop: '1px solid var(--mantine-color-default-border)' }}
              data-testid={`sup-queue-dept-${d.departmentId ?? 'none'}`}
            >
              <Text size="sm" truncate fs={d.departmentId === null ? 'italic' : undefined}>
                {d.department}
              </Text>
              <Group gap="lg" wrap="nowrap">
                <Text size="sm" fw={600} w={56} ta="right">
                  {d.waiting}
                </Text>
                <Text size="sm" style={TABULAR} w={84} ta="right">
                  {elapsed(d.oldestQueuedAt, now)}
                </Text>
              </Group>
            </Group>
          ))}
        </Stack>
      )}
    </Paper>
  );
}
