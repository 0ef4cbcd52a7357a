import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { INTEGRATION_STRINGS as I } from '@parley/contracts';
import { CopyLine } from '../../ui/CopyLine';

/** A secret the server gives once (a new token, a webhook's signing secret): the value, Copy, and Done. */
export function ShownOnce({
  intro,
  label,
  value,
  testId,
  onDone,
}: {
  intro: string;
  label: string;
  value: string;
  testId: string;
  onDone(): void;
}) {
  return (
    <Alert color="yellow" data-testid={`${testId}-alert`}>
      <Stack gap="xs">
        {/* Not the Alert's title: its yellow heading on the light yellow falls short of AA contrast. */}
        <Text size="sm" fw={600}>
          {intro}
        </Text>
        <CopyLine label={label} copyLabel={`${I.copy} ${label}`} value={value} testId={testId} />
        <Group justify="flex-end">
          <Button size="xs" variant="default" onClick={onDone}>
            {I.done}
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}
