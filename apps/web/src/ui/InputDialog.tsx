import {
  Alert,
  Button,
  Checkbox,
  Group,
  Modal,
  MultiSelect,
  Radio,
  Select,
  Stack,
  Table,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { dialogDateValue, ID_TYPES, identityValue, REFUSES_TO_PROVIDE, showsIdentityNumber } from '@parley/contracts';
import { useCallback, useEffect, useState } from 'react';

/**
 * SHELL-42 .. SHELL-48. One input of the generic dialog:
 * - text: a line of text; date: a calendar date, sent as "YYYY-MM-DD 00:00:00";
 * - select: a drop-down of `options`; option: the same options as radio buttons;
 * - button: the options as buttons, a click picks one and submits (they replace the submit button, and
 *   Enter picks the first);
 * - id: an ID type, "Refuses to provide", and the identity number;
 * - textarea: several lines of text;
 * - multiselect: any number of `choices` (value and label); the value is the chosen values as a JSON list.
 */
export type DialogInput =
  | { kind: 'text' | 'date' | 'textarea'; name: string; label: string; required?: boolean }
  | {
      kind: 'multiselect';
      name: string;
      label: string;
      choices: { value: string; label: string }[];
      required?: boolean;
    }
  | {
      kind: 'select' | 'option' | 'button';
      name: string;
      label: string;
      options: string[];
      required?: boolean;
      /** The option chosen when the dialog opens (select and option kinds). */
      initial?: string;
    }
  | { kind: 'id'; name: string; label: string; required?: boolean };

/** The values a dialog opens with: the `initial` option of each select and option input, and each id input's three. */
const initialValues = (inputs: DialogInput[]): Record<string, string> =>
  Object.fromEntries(
    inputs.flatMap((i): [string, string][] => {
      if (i.kind === 'id')
        return [
          [i.name, identityValue('None', false, '')],
          [`${i.name}_type`, 'None'],
          [`${i.name}_refused`, 'no'],
        ];
      return 'initial' in i && i.initial ? [[i.name, i.initial]] : [];
    }),
  );

/** The chosen values of a multiselect input (its value is a JSON list of strings, '' for none). */
export function multiValue(v: string | undefined): string[] {
  if (!v) return [];
  try {
    const list = JSON.parse(v) as unknown;
    return Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

export interface InputDialogProps {
  opened: boolean;
  title: string;
  description?: string;
  /** Shown above the inputs, e.g. the server's answer to a previous try. */
  error?: string | null;
  /** Read-only rows shown above the inputs (what is already known). */
  list?: { label: string; value: string }[];
  inputs: DialogInput[];
  submitLabel?: string;
  extraButton?: { label: string; onClick(): void };
  /** The submit button shows it is working (the caller is waiting for the server). */
  busy?: boolean;
  onClose(): void;
  onSubmit(values: Record<string, string>): void;
}

/**
 * The id kind reports three values: `name` (the identity number, or "Refuses to provide", SHELL-46),
 * `name_type` (the ID type) and `name_refused` ("yes" or "no").
 */
function IdInput({
  name,
  label,
  values,
  set,
}: {
  name: string;
  label: string;
  values: Record<string, string>;
  set(name: string, v: string): void;
}) {
  const idType = values[`${name}_type`] ?? 'None';
  const refused = values[`${name}_refused`] === 'yes';
  const [number, setNumber] = useState('');
  // All three values change in the event handler itself, so a submit right after a click (Enter in
  // another field) reads them; an effect after the render could still be pending then.
  const change = (t: string, r: boolean, n: string) => {
    set(name, identityValue(t, r, n));
    set(`${name}_type`, t);
    set(`${name}_refused`, r ? 'yes' : 'no');
  };
  return (
    <Stack gap="xs">
      <Select
        label={`${label}: ID type`}
        data={[...ID_TYPES]}
        value={idType}
        onChange={(v) => change(v ?? 'None', refused, number)}
        allowDeselect={false}
      />
      <Checkbox
        label={REFUSES_TO_PROVIDE}
        checked={refused}
        onChange={(e) => change(idType, e.currentTarget.checked, number)}
      />
      {showsIdentityNumber(idType, refused) && (
        <TextInput
          label="Identity number"
          value={number}
          onChange={(e) => {
            setNumber(e.currentTarget.value);
            change(idType, refused, e.currentTarget.value);
          }}
        />
      )}
    </Stack>
  );
}

export function InputDialog(p: InputDialogProps) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [missing, setMissing] = useState<string | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the dialog opens, not as inputs change.
  useEffect(() => {
    if (p.opened) {
      setValues(initialValues(p.inputs));
      setMissing(null);
    }
  }, [p.opened]);
  const setValue = useCallback(
    (name: string, v: string) => setValues((vs) => (vs[name] === v ? vs : { ...vs, [name]: v })),
    [],
  );
  const set = (name: string) => (v: string) => setValue(name, v);

  function submit(extra: Record<string, string> = {}) {
    const all = { ...values, ...extra };
    const empty = p.inputs.find((i) => i.required && !all[i.name]);
    if (empty) {
      setMissing(`${empty.label}: This cannot be empty.`);
      return;
    }
    p.onSubmit(all);
  }

  return (
    <Modal opened={p.opened} onClose={p.onClose} title={p.title} centered>
      {/* A form, so Enter in a text input submits; its own check (not the browser's) names what is missing. */}
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          // A dialog whose answer is a button: Enter picks the first one, the way a default button would.
          const pick = p.inputs.find((i) => i.kind === 'button');
          submit(pick && pick.kind === 'button' && pick.options[0] ? { [pick.name]: pick.options[0] } : {});
        }}
      >
        <Stack>
          {p.description && <Text size="sm">{p.description}</Text>}
          {(p.error || missing) && (
            <Alert color="red" role="alert">
              {p.error || missing}
            </Alert>
          )}
          {p.list && p.list.length > 0 && (
            <Table>
              <Table.Tbody>
                {p.list.map((row) => (
                  <Table.Tr key={row.label}>
                    <Table.Th w="40%">{row.label}</Table.Th>
                    <Table.Td>{row.value}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
          {p.inputs.map((i) => {
            switch (i.kind) {
              case 'text':
                return (
                  <TextInput
                    key={i.name}
                    label={i.label}
                    required={i.required}
                    value={values[i.name] ?? ''}
                    onChange={(e) => set(i.name)(e.currentTarget.value)}
                  />
                );
              case 'textarea':
                return (
                  <Textarea
                    key={i.name}
                    label={i.label}
                    required={i.required}
                    autosize
                    minRows={3}
                    maxRows={8}
                    value={values[i.name] ?? ''}
                    onChange={(e) => set(i.name)(e.currentTarget.value)}
                  />
                );
              case 'multiselect':
                return (
                  <MultiSelect
                    key={i.name}
                    label={i.label}
                    required={i.required}
                    data={i.choices}
                    searchable
                    clearable
                    comboboxProps={{ withinPortal: true }}
                    value={multiValue(values[i.name])}
                    onChange={(v) => set(i.name)(v.length ? JSON.stringify(v) : '')}
                  />
                );
              case 'date':
                return (
                  <TextInput
                    key={i.name}
                    type="date"
                    label={i.label}
                    required={i.required}
                    onChange={(e) => set(i.name)(dialogDateValue(e.currentTarget.value))}
                  />
                );
              case 'select':
                return (
                  <Select
                    key={i.name}
                    label={i.label}
                    required={i.required}
                    data={i.options}
                    value={values[i.name] ?? null}
                    onChange={(v) => set(i.name)(v ?? '')}
                  />
                );
              case 'option':
                return (
                  <Radio.Group
                    key={i.name}
                    label={i.label}
                    required={i.required}
                    value={values[i.name] ?? ''}
                    onChange={set(i.name)}
                  >
                    <Stack gap={6} mt={4}>
                      {i.options.map((o) => (
                        <Radio key={o} value={o} label={o} />
                      ))}
                    </Stack>
                  </Radio.Group>
                );
              case 'button':
                return (
                  <Stack key={i.name} gap={4}>
                    <Text size="sm" fw={500}>
                      {i.label}
                    </Text>
                    <Group gap="xs" role="group" aria-label={i.label}>
                      {i.options.map((o) => (
                        <Button key={o} variant="default" disabled={p.busy} onClick={() => submit({ [i.name]: o })}>
                          {o}
                        </Button>
                      ))}
                    </Group>
                  </Stack>
                );
              case 'id':
                return <IdInput key={i.name} name={i.name} label={i.label} values={values} set={setValue} />;
              default:
                return null;
            }
          })}
          <Group justify="flex-end">
            {p.extraButton && (
              <Button variant="default" onClick={p.extraButton.onClick} mr="auto">
                {p.extraButton.label}
              </Button>
            )}
            <Button variant="default" onClick={p.onClose}>
              Close
            </Button>
            {/* The buttons of a button input are the dialog's answer; otherwise the submit button is. */}
            {!p.inputs.some((i) => i.kind === 'button') && (
              <Button type="submit" loading={p.busy}>
                {p.submitLabel ?? 'OK'}
              </Button>
            )}
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
