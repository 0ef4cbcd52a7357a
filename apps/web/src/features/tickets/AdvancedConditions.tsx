import { ActionIcon, Button, Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { IconPlus, IconX } from '@tabler/icons-react';
import { useRef } from 'react';
import { ADV_FIELDS, type AdvRow, MAX_ADV_ROWS, opsOf } from '../../lib/api/advConditions';
import { T } from './strings';

/** TICKET-06 (design): up to 10 conditions on the ticket's fields, all of which must hold. */
export function AdvancedConditions({ rows, onChange }: { rows: AdvRow[]; onChange(rows: AdvRow[]): void }) {
  const addRef = useRef<HTMLButtonElement>(null);
  const set = (i: number, patch: Partial<AdvRow>) =>
    onChange(
      rows.map((r, j) => {
        if (j !== i) return r;
        const next = { ...r, ...patch };
        // A field of another kind keeps the operator only where it still applies.
        if (patch.field && !opsOf(next.field).includes(next.op)) next.op = opsOf(next.field)[0] ?? 'is';
        return next;
      }),
    );
  return (
    <Stack gap={6} data-testid="adv-conditions">
      <Text size="sm" fw={500}>
        {T.conditions}
      </Text>
      {rows.map((r, i) => (
        // Field and condition on one line, the value under them: three inputs side by side do not fit.
        // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity of their own; order is the identity
        <Stack key={i} gap={4} data-testid="adv-row">
          <Group gap={4} wrap="nowrap">
            <Select
              aria-label={T.conditionField}
              size="xs"
              style={{ flex: 1 }}
              data={ADV_FIELDS.map((f) => ({ value: f, label: T.advFields[f] }))}
              value={r.field}
              onChange={(v) => v && set(i, { field: v })}
              allowDeselect={false}
              comboboxProps={{ withinPortal: false }}
            />
            <Select
              aria-label={T.conditionOp}
              size="xs"
              style={{ flex: 1 }}
              data={opsOf(r.field).map((o) => ({ value: o, label: T.advOps[o as keyof typeof T.advOps] }))}
              value={r.op}
              onChange={(v) => v && set(i, { op: v })}
              allowDeselect={false}
              comboboxProps={{ withinPortal: false }}
            />
            <ActionIcon
              variant="subtle"
              color="gray"
              aria-label={T.removeCondition}
              onClick={() => {
                onChange(rows.filter((_, j) => j !== i));
                // The removed button took the focus with it: keep it in the panel, so Escape still closes it.
                addRef.current?.focus();
              }}
            >
              <IconX size={14} />
            </ActionIcon>
          </Group>
          <TextInput
            aria-label={T.conditionValue}
            size="xs"
            mr={32}
            maxLength={200}
            placeholder={r.field === 'ticket_number' ? T.wholeNumber : T.conditionValue}
            inputMode={r.field === 'ticket_number' ? 'numeric' : undefined}
            error={r.field === 'ticket_number' && r.value.trim() !== '' && !/^\d{1,15}$/.test(r.value.trim())}
            value={r.value}
            onChange={(e) => set(i, { value: e.currentTarget.value })}
          />
        </Stack>
      ))}
      <Button
        ref={addRef}
        size="compact-xs"
        variant="subtle"
        leftSection={<IconPlus size={14} />}
        disabled={rows.length >= MAX_ADV_ROWS}
        onClick={() => onChange([...rows, { field: 'title', op: 'contains', value: '' }])}
        style={{ alignSelf: 'flex-start' }}
      >
        {T.addCondition}
      </Button>
    </Stack>
  );
}
