import { Button, Code, CopyButton, Group, Stack, Text } from '@mantine/core';

/** A value to paste elsewhere (the webhook URL, the verify token): its label, the value, and Copy. */
export function CopyLine({
  label,
  copyLabel,
  copyText = 'Copy',
  copiedLabel = 'Copied',
  value,
  testId,
}: {
  label: string;
  /** The Copy button's name for screen readers ("Copy the webhook URL"). */
  copyLabel: string;
  copyText?: string;
  copiedLabel?: string;
  value: string;
  testId: string;
}) {
  return (
    <Stack gap={2}>
      <Text size="sm" fw={500}>
        {label}
      </Text>
      <Group gap="xs" wrap="nowrap" align="flex-start">
        <Code data-testid={testId} style={{ overflowWrap: 'anywhere', wordBreak: 'break-all', minWidth: 0, flex: 1 }}>
          {value}
        </Code>
        <CopyButton value={value}>
          {({ copied, copy }) => (
            <Button size="compact-xs" variant="light" onClick={copy} style={{ flexShrink: 0 }} aria-label={copyLabel}>
              {copied ? copiedLabel : copyText}
            </Button>
          )}
        </CopyButton>
      </Group>
    </Stack>
  );
}
