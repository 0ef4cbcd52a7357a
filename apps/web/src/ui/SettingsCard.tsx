import { Alert, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import type { ReactNode } from 'react';

/**
 * The card every settings section is drawn in: its title (with `aside` at the right: a count, an Add
 * button), an optional hint below it, the last write's error, then the section itself. A section saved as a
 * whole passes its buttons as `footer`: they close the card, and the error stands just above them, next to
 * the Save that caused it.
 */
export function SettingsCard({
  title,
  hint,
  aside,
  error,
  errorTitle,
  errorTestId,
  footer,
  testId,
  children,
}: {
  title: ReactNode;
  hint?: ReactNode;
  aside?: ReactNode;
  error?: string | null;
  /** A heading above the error's text. */
  errorTitle?: ReactNode;
  errorTestId?: string;
  footer?: ReactNode;
  testId?: string;
  children: ReactNode;
}) {
  const heading = (
    <Title order={3} size="h4">
      {title}
    </Title>
  );
  const alert = error && (
    <Alert color="red" role="alert" title={errorTitle} data-testid={errorTestId}>
      {error}
    </Alert>
  );
  return (
    <Card withBorder radius="md" padding="lg" data-testid={testId}>
      <Stack>
        {aside ? (
          <Group justify="space-between">
            {heading}
            {aside}
          </Group>
        ) : (
          heading
        )}
        {hint && (
          <Text size="sm" c="dimmed">
            {hint}
          </Text>
        )}
        {!footer && alert}
        {children}
        {footer && (
          <>
            {alert}
            <Group>{footer}</Group>
          </>
        )}
      </Stack>
    </Card>
  );
}

/** The `footer` of a list saved as one (holidays, SLA policies): Add a row, then Save the whole list. */
export function AddSaveButtons({
  addLabel,
  onAdd,
  saveLabel,
  saveTestId,
  saving,
  onSave,
}: {
  addLabel: string;
  onAdd(): void;
  saveLabel: string;
  saveTestId: string;
  saving: boolean;
  onSave(): void;
}) {
  return (
    <>
      <Button variant="default" leftSection={<IconPlus size={16} />} onClick={onAdd}>
        {addLabel}
      </Button>
      <Button data-testid={saveTestId} loading={saving} onClick={onSave}>
        {saveLabel}
      </Button>
    </>
  );
}
