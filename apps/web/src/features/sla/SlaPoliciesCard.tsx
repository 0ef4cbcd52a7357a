import { ActionIcon, Group, NumberInput, Paper, Select, Stack, Switch, Text, TextInput } from '@mantine/core';
import { CHANNELS, type SlaPolicy, type SlaSettings, TICKET_PRIORITIES } from '@parley/contracts';
import { IconArrowDown, IconArrowUp, IconTrash } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { AddSaveButtons, SettingsCard } from '../../ui/SettingsCard';
import { slaApi } from './api';
import { S } from './strings';
import { useSlaSave } from './useSlaSave';

const NEW_POLICY: SlaPolicy = {
  name: '',
  priority: null,
  channel: null,
  labelId: null,
  departmentId: null,
  firstResponse: 60,
  nextResponse: 240,
  resolution: null,
  calendar: false,
};
const anyOr = (data: { value: string; label: string }[]) => [{ value: '', label: S.any }, ...data];
const minutes = (v: string | number) => (v === '' || v === null ? null : Number(v));

/** The account's SLA policies as an ordered list (the order they are tried in), saved as one list. */
export function SlaPoliciesCard({
  settings,
  departments,
  labels,
  onSaved,
}: {
  settings: SlaSettings;
  departments: { id: number; name: string }[];
  labels: { id: number; name: string }[];
  onSaved(s: SlaSettings): void;
}) {
  const [rows, setRows] = useState<SlaPolicy[]>([]);
  const { save, busy, error } = useSlaSave(onSaved);
  useEffect(() => {
    setRows(settings.policies.map(({ id: _id, ...p }) => p));
  }, [settings.policies]);
  const set = (k: number, p: Partial<SlaPolicy>) => setRows((r) => r.map((x, i) => (i === k ? { ...x, ...p } : x)));
  const move = (k: number, by: number) =>
    setRows((r) => {
      const out = [...r];
      const [x] = out.splice(k, 1);
      out.splice(k + by, 0, x!);
      return out;
    });
  const idSelect = (
    label: string,
    list: { id: number; name: string }[],
    value: number | null,
    on: (v: number | null) => void,
  ) => (
    <Select
      size="xs"
      w={170}
      label={label}
      allowDeselect={false}
      data={anyOr(list.map((x) => ({ value: String(x.id), label: x.name })))}
      value={value === null ? '' : String(value)}
      onChange={(v) => on(v ? Number(v) : null)}
    />
  );
  return (
    <SettingsCard
      title={S.policiesTitle}
      hint={S.policiesHelp}
      error={error}
      footer={
        <AddSaveButtons
          addLabel={S.addPolicy}
          onAdd={() => setRows((r) => [...r, { ...NEW_POLICY }])}
          saveLabel={S.save}
          saveTestId="sla-policies-save"
          saving={busy}
          onSave={() => save(() => slaApi.savePolicies({ policies: rows }))}
        />
      }
    >
      {rows.length === 0 && (
        <Text size="sm" c="dimmed">
          {S.noPolicies}
        </Text>
      )}
      {rows.map((p, k) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the list's order is what is edited.
        <Paper key={k} withBorder p="sm" radius="sm" data-testid="sla-policy">
          <Stack gap="xs">
            <Group gap="xs" wrap="nowrap">
              <Text size="sm" fw={600} w={24}>
                {k + 1}.
              </Text>
              <TextInput
                size="xs"
                style={{ flex: 1 }}
                aria-label={S.name}
                placeholder={S.name}
                value={p.name}
                onChange={(e) => set(k, { name: e.currentTarget.value })}
              />
              <ActionIcon
                variant="subtle"
                color="gray"
                aria-label={S.moveUp}
                disabled={k === 0}
                onClick={() => move(k, -1)}
              >
                <IconArrowUp size={16} />
              </ActionIcon>
              <ActionIcon
                variant="subtle"
                color="gray"
                aria-label={S.moveDown}
                disabled={k === rows.length - 1}
                onClick={() => move(k, 1)}
              >
                <IconArrowDown size={16} />
              </ActionIcon>
              <ActionIcon
                variant="subtle"
                color="gray"
                aria-label={S.remove}
                onClick={() => setRows((r) => r.filter((_, i) => i !== k))}
              >
                <IconTrash size={16} />
              </ActionIcon>
            </Group>
            <Group gap="xs" align="flex-end">
              <Select
                size="xs"
                w={120}
                label={S.priority}
                allowDeselect={false}
                data={anyOr(TICKET_PRIORITIES.filter(Boolean).map((x) => ({ value: x, label: S.priorities[x]! })))}
                value={p.priority ?? ''}
                onChange={(v) => set(k, { priority: (v || null) as SlaPolicy['priority'] })}
              />
              <Select
                size="xs"
                w={170}
                label={S.channel}
                allowDeselect={false}
                searchable
                data={anyOr(
                  Object.entries(CHANNELS).map(([value, label]) => ({ value, label: `${label} (${value})` })),
                )}
                value={p.channel ?? ''}
                onChange={(v) => set(k, { channel: v || null })}
              />
              {idSelect(S.label, labels, p.labelId, (v) => set(k, { labelId: v }))}
              {idSelect(S.department, departments, p.departmentId, (v) => set(k, { departmentId: v }))}
            </Group>
            <Group gap="xs" align="flex-end">
              {(
                [
                  ['firstResponse', S.firstResponse],
                  ['nextResponse', S.nextResponse],
                  ['resolution', S.resolution],
                ] as const
              ).map(([key, label]) => (
                <NumberInput
                  key={key}
                  size="xs"
                  w={150}
                  label={label}
                  min={1}
                  allowDecimal={false}
                  value={p[key] ?? ''}
                  onChange={(v) => set(k, { [key]: minutes(v) })}
                />
              ))}
              <Switch
                mb={6}
                label={S.calendar}
                checked={p.calendar}
                onChange={(e) => set(k, { calendar: e.currentTarget.checked })}
              />
            </Group>
          </Stack>
        </Paper>
      ))}
    </SettingsCard>
  );
}
