import { ActionIcon, Group, Text, TextInput } from '@mantine/core';
import type { Holiday, SlaSettings } from '@parley/contracts';
import { IconTrash } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { AddSaveButtons, SettingsCard } from '../../ui/SettingsCard';
import { slaApi } from './api';
import { ScopeSelect } from './BusinessHoursCard';
import { S } from './strings';
import { useSlaSave } from './useSlaSave';

/**
 * The holidays of the account or of a department: days picked in the browser's date field (its value is
 * YYYY-MM-DD, shown in the browser's own way) and names, saved as one list.
 */
export function HolidaysCard({
  settings,
  departments,
  onSaved,
}: {
  settings: SlaSettings;
  departments: { id: number; name: string }[];
  onSaved(s: SlaSettings): void;
}) {
  const [scope, setScope] = useState('');
  const departmentId = scope === '' ? null : Number(scope);
  const stored = settings.holidays.find((h) => h.departmentId === departmentId)?.holidays;
  const [rows, setRows] = useState<Holiday[]>([]);
  const { save, busy, error, setError } = useSlaSave(onSaved);
  useEffect(() => {
    setRows((stored ?? []).map((h) => ({ ...h })));
    setError(null);
  }, [stored, setError]);
  const set = (k: number, h: Partial<Holiday>) => setRows((r) => r.map((x, i) => (i === k ? { ...x, ...h } : x)));
  return (
    <SettingsCard
      title={S.holidaysTitle}
      hint={S.holidaysHelp}
      error={error}
      footer={
        <AddSaveButtons
          addLabel={S.addHoliday}
          onAdd={() => setRows((r) => [...r, { date: '', name: '' }])}
          saveLabel={S.save}
          saveTestId="sla-holidays-save"
          saving={busy}
          onSave={() => save(() => slaApi.saveHolidays({ departmentId, holidays: rows }))}
        />
      }
    >
      <ScopeSelect value={scope} onChange={setScope} departments={departments} />
      {rows.length === 0 && (
        <Text size="sm" c="dimmed">
          {S.noHolidays}
        </Text>
      )}
      {rows.map((h, k) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows being edited have no id yet.
        <Group key={k} gap="xs" wrap="nowrap">
          <TextInput
            size="xs"
            w={150}
            type="date"
            aria-label={S.date}
            value={h.date}
            onChange={(e) => set(k, { date: e.currentTarget.value })}
          />
          <TextInput
            size="xs"
            style={{ flex: 1 }}
            maw={320}
            aria-label={S.name}
            placeholder={S.name}
            value={h.name}
            onChange={(e) => set(k, { name: e.currentTarget.value })}
          />
          <ActionIcon
            variant="subtle"
            color="gray"
            aria-label={S.remove}
            onClick={() => setRows((r) => r.filter((_, i) => i !== k))}
          >
            <IconTrash size={16} />
          </ActionIcon>
        </Group>
      ))}
    </SettingsCard>
  );
}
