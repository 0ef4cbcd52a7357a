import { ActionIcon, Alert, Badge, Button, ColorInput, Group, Table, TextInput, Title } from '@mantine/core';
import { LABEL_STRINGS, type Label, type LabelItemInput, NEW_LABEL, parseDay, validateLabel } from '@parley/contracts';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { labelsApi } from '../../lib/api/labels';
import { errorText, HttpError } from '../../lib/http';
import { labelKeys } from '../../lib/queryKeys';
import { useRealtimeEvent } from '../../lib/realtime';
import { SettingsCard } from '../../ui/SettingsCard';
import { toast } from '../../ui/toast';

/**
 * A label being edited: numbers and colours stay text until saved, so "1.5" or "#12" can be shown and
 * refused (LABEL-05, LABEL-06). The colour inputs keep what was typed (`fixOnBlur` off): by default they
 * put the last valid colour back when they lose focus, so a bad colour was silently replaced on Save.
 */
interface Draft {
  key: string;
  id?: number;
  isNew?: boolean;
  name: string;
  color: string;
  colorDark: string;
  level: string;
  sla: string;
}

let nextKey = 0;
const toDraft = (l: Label): Draft => ({
  key: `label-${l.id}`,
  id: l.id,
  name: l.name,
  color: l.color,
  colorDark: l.colorDark,
  level: String(l.level),
  sla: String(l.sla),
});
const toInput = ({ key: _key, ...d }: Draft): LabelItemInput => d;

/**
 * LABEL-01, LABEL-02, LABEL-10, LABEL-11, LABEL-14, LABEL-18: the account's labels as an editable table
 * (add, delete, save in one go; removed labels listed greyed as "Removed") and the auto-close duration.
 */
export function LabelsCard() {
  const qc = useQueryClient();
  const list = useQuery({ queryKey: labelKeys.list, queryFn: labelsApi.list });
  const settings = useQuery({ queryKey: labelKeys.settings, queryFn: labelsApi.settings });
  /** null while nothing is edited: the table shows the server's list. */
  const [drafts, setDrafts] = useState<Draft[] | null>(null);
  const [deleted, setDeleted] = useState<number[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [day, setDay] = useState<string | null>(null);
  const [dayError, setDayError] = useState<string | null>(null);

  // Another admin's save shows up live; edits in progress are kept.
  useRealtimeEvent('labelsUpdated', () => void qc.invalidateQueries({ queryKey: labelKeys.list }));
  useRealtimeEvent('settingsChanged', () => void qc.invalidateQueries({ queryKey: labelKeys.settings }));

  const active = (list.data ?? []).filter((l) => !l.removed);
  const removed = (list.data ?? []).filter((l) => l.removed);
  const rows = drafts ?? active.map(toDraft);
  const dirty = drafts !== null || deleted.length > 0;

  const edit = (key: string, change: Partial<Draft>) =>
    setDrafts(rows.map((d) => (d.key === key ? { ...d, ...change } : d)));
  const add = () =>
    setDrafts([
      ...rows,
      {
        key: `new-${++nextKey}`,
        isNew: true,
        ...NEW_LABEL,
        level: String(NEW_LABEL.level),
        sla: String(NEW_LABEL.sla),
      },
    ]);
  const remove = (d: Draft) => {
    setDrafts(rows.filter((x) => x.key !== d.key));
    if (d.id !== undefined && !d.isNew) setDeleted([...deleted, d.id]);
  };
  const reset = () => {
    setDrafts(null);
    setDeleted([]);
    setError(null);
  };

  function save() {
    setError(null);
    const invalid = rows.map((d) => validateLabel(d)).find((e) => e !== null);
    if (invalid) {
      setError(invalid);
      return;
    }
    saveLabels.mutate();
  }

  const saveLabels = useMutation({
    mutationFn: () => labelsApi.update(rows.map(toInput), deleted),
    onSuccess: (r) => {
      qc.setQueryData(labelKeys.list, r.data);
      setDrafts(null);
      setDeleted([]);
      toast({ message: LABEL_STRINGS.updated });
    },
    onError: (err) => setError(errorText(err)),
  });
  const saveDuration = useMutation({
    mutationFn: (v: { text: string; day: number | null }) => labelsApi.updateDuration(v.text),
    onSuccess: (_r, v) => {
      qc.setQueryData(labelKeys.settings, { duration: v.day });
      setDay(null);
      toast({ message: LABEL_STRINGS.settingsUpdated });
    },
    onError: (err) => setDayError(errorText(err)),
  });

  const dayValue = day ?? (settings.data?.duration == null ? '' : String(settings.data.duration));
  function saveDay() {
    setDayError(null);
    const parsed = parseDay(dayValue);
    if (!parsed.ok) {
      setDayError(parsed.error);
      return;
    }
    saveDuration.mutate({ text: dayValue.trim(), day: parsed.day });
  }

  return (
    <SettingsCard
      title="Labels"
      hint="Priority level and SLA (minutes) are whole numbers; colours are # and 6 hex digits."
      error={error}
      errorTitle={LABEL_STRINGS.failed}
    >
      {list.isError && (
        <Alert color="red" role="alert">
          {list.error instanceof HttpError ? list.error.description : 'Failed'}
        </Alert>
      )}
      <Table>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Color</Table.Th>
            <Table.Th>Dark color</Table.Th>
            <Table.Th>Level</Table.Th>
            <Table.Th>SLA (minutes)</Table.Th>
            <Table.Th w={40} />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((d) => (
            <Table.Tr key={d.key}>
              <Table.Td>
                <TextInput
                  aria-label="Name"
                  value={d.name}
                  maxLength={100}
                  onChange={(e) => edit(d.key, { name: e.currentTarget.value })}
                />
              </Table.Td>
              <Table.Td>
                <ColorInput
                  aria-label="Color"
                  format="hex"
                  fixOnBlur={false}
                  value={d.color}
                  onChange={(color) => edit(d.key, { color })}
                />
              </Table.Td>
              <Table.Td>
                <ColorInput
                  aria-label="Dark color"
                  format="hex"
                  fixOnBlur={false}
                  value={d.colorDark}
                  onChange={(colorDark) => edit(d.key, { colorDark })}
                />
              </Table.Td>
              <Table.Td>
                <TextInput
                  aria-label="Level"
                  inputMode="numeric"
                  w={80}
                  value={d.level}
                  onChange={(e) => edit(d.key, { level: e.currentTarget.value })}
                />
              </Table.Td>
              <Table.Td>
                <TextInput
                  aria-label="SLA (minutes)"
                  inputMode="numeric"
                  w={100}
                  value={d.sla}
                  onChange={(e) => edit(d.key, { sla: e.currentTarget.value })}
                />
              </Table.Td>
              <Table.Td>
                <ActionIcon variant="subtle" color="red" aria-label={`Delete ${d.name}`} onClick={() => remove(d)}>
                  <IconTrash size={16} />
                </ActionIcon>
              </Table.Td>
            </Table.Tr>
          ))}
          {removed.map((l) => (
            <Table.Tr key={`removed-${l.id}`} c="dimmed" opacity={0.6}>
              <Table.Td>{l.name}</Table.Td>
              <Table.Td>{l.color}</Table.Td>
              <Table.Td>{l.colorDark}</Table.Td>
              <Table.Td>{l.level}</Table.Td>
              <Table.Td>{l.sla}</Table.Td>
              <Table.Td>
                <Badge color="gray" variant="light">
                  {LABEL_STRINGS.removed}
                </Badge>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Group>
        <Button variant="light" leftSection={<IconPlus size={16} />} onClick={add}>
          Add label
        </Button>
        <Button onClick={save} loading={saveLabels.isPending} disabled={!dirty}>
          Save
        </Button>
        {dirty && (
          <Button variant="subtle" onClick={reset}>
            Cancel
          </Button>
        )}
      </Group>

      <Title order={4} size="h5" mt="md">
        Duration
      </Title>
      <Group align="flex-end">
        <TextInput
          label="Days until a Resolved ticket closes"
          inputMode="numeric"
          w={260}
          value={dayValue}
          error={dayError}
          onChange={(e) => setDay(e.currentTarget.value)}
        />
        <Button onClick={saveDay}>Save</Button>
      </Group>
    </SettingsCard>
  );
}
