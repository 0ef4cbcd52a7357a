import { Paper, Text } from '@mantine/core';

/** One figure of a screen's summary row: a small capitalised label over a large value ('—' when empty). */
export function Figure({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <Paper withBorder radius="md" p="sm">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="xl" fw={700} mih={31} data-testid={testId}>
        {value || '—'}
      </Text>
    </Paper>
  );
}
