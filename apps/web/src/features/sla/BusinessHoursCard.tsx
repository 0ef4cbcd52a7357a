import { ActionIcon, Autocomplete, Button, Group, Select, Stack, Switch, Text, TextInput } from '@mantine/core';
import { type BusinessInterval, type SlaSettings, WEEKDAY_NAMES, type WeekSchedule } from '@parley/contracts';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useEffect, useMemo, useState } from 'react';
import { SettingsCard } from '../../ui/SettingsCard';
import { slaApi } from './api';
import { S } from './strings';
import { useSlaSave } from './useSlaSave';

/** Monday first on screen; the schedule itself is Sunday first. */
const SHOWN_DAYS = [1, 2, 3, 4, 5, 6, 0];
const DEFAULT_DAY: BusinessInterval[] = [{ start: '09:00', end: '17:00' }];
const defaultWeek = (): WeekSchedule => [[], DEFAULT_DAY, DEFAULT_DAY, DEFAULT_DAY, DEFAULT_DAY, DEFAULT_DAY, []];
const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
const zones = (): string[] => {
  const f = (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf;
  return f ? f('timeZone') : ['UTC'];
};

/** Scope select: the whole account or one department. */
export function ScopeSelect(props: {
  value: string;
  onChange(v: string): void;
  departments: { id: number; name: string }[];
}) {
  return (
    <Select
      label={S.scope}
      w={260}
      allowDeselect={false}
      data={[
        { value: '', label: S.account },
        ...props.departments.map((d) => ({ value: String(d.id), label: d.name })),
      ]}
      value={props.value}
      onChange={(v) => props.onChange(v ?? '')}
    />
  );
}

/** The business hours of the account or a department: a time zone and each weekday's opening intervals. */
export function BusinessHoursCard({
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
  const stored = settings.businessHours.find((h) => h.departmentId === departmentId);
  const [timezone, setTimezone] = useState('');
  const [days, setDays] = useState<WeekSchedule>(defaultWeek);
  const { save, busy, error, setError } = useSlaSave(onSaved);
  const zoneList = useMemo(zones, []);
  useEffect(() => {
    const base = stored ?? settings.businessHours.find((h) => h.departmentId === null);
    setTimezone(base?.timezone ?? browserZone());
    setDays(base ? base.days.map((d) => d.map((i) => ({ ...i }))) : defaultWeek());
    setError(null);
  }, [stored, settings.businessHours, setError]);

  const setDay = (d: number, list: BusinessInterval[]) => setDays((w) => w.map((x, i) => (i === d ? list : x)));

  return (
    <SettingsCard
      title={S.hoursTitle}
      hint={S.hoursHelp}
      error={error}
      errorTestId="sla-hours-error"
      footer={
        <>
          <Button
            data-testid="sla-hours-save"
            loading={busy}
            onClick={() => save(() => slaApi.saveHours({ departmentId, timezone, days }))}
          >
            {S.save}
          </Button>
          {departmentId !== null && stored && (
            <Button variant="default" disabled={busy} onClick={() => save(() => slaApi.deleteHours(departmentId))}>
              {S.useAccountHours}
            </Button>
          )}
        </>
      }
    >
      <Group align="flex-end" wrap="wrap">
        <ScopeSelect value={scope} onChange={setScope} departments={departments} />
        <Autocomplete
          label={S.timezone}
          data-testid="sla-timezone"
          w={260}
          data={zoneList}
          limit={20}
          value={timezone}
          onChange={setTimezone}
        />
      </Group>
      {!stored && (
        <Text size="sm" c="dimmed" data-testid="sla-hours-state">
          {departmentId === null ? S.noHours : S.usingAccountHours}
        </Text>
      )}
      <Stack gap="xs">
        {SHOWN_DAYS.map((d) => {
          const name = WEEKDAY_NAMES[d]!;
          const list = days[d] ?? [];
          return (
            <Group key={d} align="flex-start" gap="sm" data-testid={`sla-day-${name}`}>
              <Switch
                w={130}
                mt={6}
                label={name}
                checked={list.length > 0}
                onChange={(e) => setDay(d, e.currentTarget.checked ? DEFAULT_DAY.map((i) => ({ ...i })) : [])}
              />
              <Stack gap={6} style={{ flex: 1, minWidth: 240 }}>
                {list.length === 0 && (
                  <Text size="sm" c="dimmed" mt={6}>
                    {S.closed}
                  </Text>
                )}
                {list.map((i, k) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: intervals have no id; their place is their key.
                  <Group key={k} gap={6} wrap="nowrap">
                    <TextInput
                      size="xs"
                      w={80}
                      aria-label={`${name} ${S.from}`}
                      placeholder="HH:MM"
                      value={i.start}
                      onChange={(e) =>
                        setDay(
                          d,
                          list.map((x, j) => (j === k ? { ...x, start: e.currentTarget.value } : x)),
                        )
                      }
                    />
                    <Text size="sm">–</Text>
                    <TextInput
                      size="xs"
                      w={80}
                      aria-label={`${name} ${S.to}`}
                      placeholder="HH:MM"
                      value={i.end}
                      onChange={(e) =>
                        setDay(
                          d,
                          list.map((x, j) => (j === k ? { ...x, end: e.currentTarget.value } : x)),
                        )
                      }
                    />
                    <ActionIcon
                      variant="subtle"
                      color="gray"
                      aria-label={`${name}: ${S.removeInterval}`}
                      onClick={() =>
                        setDay(
                          d,
                          list.filter((_, j) => j !== k),
                        )
                      }
                    >
                      <IconTrash size={16} />
                    </ActionIcon>
                    {k === list.length - 1 && (
                      <ActionIcon
                        variant="subtle"
                        aria-label={`${name}: ${S.addInterval}`}
                        onClick={() => setDay(d, [...list, { start: '', end: '' }])}
                      >
                        <IconPlus size={16} />
                      </ActionIcon>
                    )}
                  </Group>
                ))}
              </Stack>
            </Group>
          );
        })}
      </Stack>
    </SettingsCard>
  );
}
