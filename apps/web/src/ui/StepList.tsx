import { ActionIcon, Button, Group, Paper, Select, Stack, Text } from '@mantine/core';
import { IconPlus, IconX } from '@tabler/icons-react';
import type { ReactNode } from 'react';

/**
 * An editable list of typed steps (a macro's actions, a rule's conditions and actions): each step a framed
 * row with its kind (a select: choosing another kind starts that kind afresh), its own fields and a remove
 * button; an Add button below, with `extra` buttons beside it.
 */
export function StepList<T, K extends string>({
  title,
  items,
  onChange,
  kindOf,
  kinds,
  fresh,
  render,
  testId,
  kindLabel,
  removeLabel,
  addLabel,
  addTestId,
  added,
  empty,
  extra,
}: {
  title: string;
  items: T[];
  onChange(items: T[]): void;
  kindOf(item: T): K;
  kinds: { value: K; label: string }[];
  fresh(kind: K): T;
  render(item: T, change: (next: T) => void): ReactNode;
  testId: string;
  kindLabel: string;
  removeLabel: string;
  addLabel: string;
  addTestId?: string;
  /** The step the Add button adds. */
  added: K;
  empty?: ReactNode;
  extra?: ReactNode;
}) {
  const put = (i: number, next: T) => onChange(items.map((x, j) => (j === i ? next : x)));
  return (
    <>
      <Text size="sm" fw={500}>
        {title}
      </Text>
      {items.length === 0 && empty}
      {items.map((item, i) => (
        <Paper key={`${i}-${kindOf(item)}`} withBorder p="xs" data-testid={testId}>
          <Group align="flex-start" wrap="nowrap" gap="xs">
            <Stack gap={6} style={{ flex: 1, minWidth: 0 }}>
              <Select
                aria-label={kindLabel}
                data={kinds}
                value={kindOf(item)}
                allowDeselect={false}
                onChange={(v) => put(i, fresh(v as K))}
              />
              {render(item, (next) => put(i, next))}
            </Stack>
            <ActionIcon
              variant="subtle"
              color="gray"
              aria-label={removeLabel}
              onClick={() => onChange(items.filter((_, j) => j !== i))}
            >
              <IconX size={16} />
            </ActionIcon>
          </Group>
        </Paper>
      ))}
      <Group>
        <Button
          variant="light"
          size="compact-sm"
          leftSection={<IconPlus size={14} />}
          data-testid={addTestId}
          onClick={() => onChange([...items, fresh(added)])}
        >
          {addLabel}
        </Button>
        {extra}
      </Group>
    </>
  );
}
