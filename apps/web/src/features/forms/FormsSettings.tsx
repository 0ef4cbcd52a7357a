import {
  ActionIcon,
  Button,
  Checkbox,
  CopyButton,
  Divider,
  Group,
  Modal,
  NumberInput,
  Paper,
  Select,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
  Tooltip,
} from '@mantine/core';
import {
  FORM_FIELD_TYPE_LABELS,
  FORM_FIELD_TYPES,
  FORM_STRINGS,
  type FormDef,
  type FormField,
  type FormFieldType,
  type FormInput,
} from '@parley/contracts';
import { IconArrowDown, IconArrowUp, IconCopy, IconPlus, IconTrash } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorText } from '../../lib/http';
import { formKeys } from '../../lib/queryKeys';
import { useWrite } from '../../lib/useWrite';
import { toast } from '../../ui/toast';
import { formsApi } from './api';

/** A key from a label: lower case letters, digits and _, starting with a letter. */
const keyOf = (label: string, taken: string[]) => {
  const slug = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 34);
  const base = /^[a-z]/.test(slug) ? slug : `f_${slug}`.replace(/_$/, '');
  let key = base;
  for (let n = 2; taken.includes(key); n++) key = `${base}_${n}`;
  return key;
};

const linkOf = (token: string) => `${window.location.origin}/new_ticket/${token}`;

/** Admins: every form with its public link; a form's builder (fields, kinds, required, choices). */
export function FormsSettings({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const qc = useQueryClient();
  const list = useQuery({ queryKey: formKeys.settings, queryFn: formsApi.settings, enabled: opened });
  const [editing, setEditing] = useState<FormDef | 'new' | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: formKeys.all });

  return (
    <Modal opened={opened} onClose={onClose} title="Manage forms" size="xl" centered>
      {editing ? (
        <FormBuilder
          form={editing === 'new' ? null : editing}
          onDone={() => {
            setEditing(null);
            void refresh();
          }}
        />
      ) : (
        <Stack gap="sm">
          {(list.data ?? []).map((f) => (
            <Paper key={f.id} withBorder radius="md" p="sm" data-testid="form-row">
              <Group justify="space-between" wrap="nowrap" align="flex-start">
                <Stack gap={2} style={{ minWidth: 0 }}>
                  <Text fw={600}>
                    {f.main ? `${f.name} (Main)` : f.name}
                    {!f.active && (
                      <Text span c="dimmed" size="sm">
                        {' '}
                        · switched off
                      </Text>
                    )}
                  </Text>
                  <Group gap={4} wrap="nowrap">
                    <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }} data-testid="form-link">
                      {linkOf(f.token)}
                    </Text>
                    <CopyButton value={linkOf(f.token)}>
                      {({ copied, copy }) => (
                        <Tooltip label={copied ? 'Copied' : 'Copy link'}>
                          <ActionIcon variant="subtle" size="sm" aria-label="Copy link" onClick={copy}>
                            <IconCopy size={14} />
                          </ActionIcon>
                        </Tooltip>
                      )}
                    </CopyButton>
                  </Group>
                  <Text size="xs" c="dimmed">
                    {f.entries} entr{f.entries === 1 ? 'y' : 'ies'} · {f.fields.length} field
                    {f.fields.length === 1 ? '' : 's'}
                  </Text>
                </Stack>
                <Group gap="xs" wrap="nowrap">
                  <Button size="compact-sm" variant="light" onClick={() => setEditing(f)}>
                    Edit
                  </Button>
                  <Button
                    size="compact-sm"
                    variant="subtle"
                    onClick={() =>
                      void formsApi.renew(f.id).then(refresh, (e) => toast({ message: errorText(e), color: 'red' }))
                    }
                  >
                    New link
                  </Button>
                </Group>
              </Group>
            </Paper>
          ))}
          <Group justify="flex-start">
            <Button
              leftSection={<IconPlus size={16} />}
              variant="light"
              onClick={() => setEditing('new')}
              data-testid="form-new"
            >
              New form
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

function FormBuilder({ form, onDone }: { form: FormDef | null; onDone(): void }) {
  const [d, setD] = useState<FormInput>(() =>
    form
      ? {
          name: form.name,
          active: form.active,
          fields: form.fields,
          start_index: form.start_index,
          data_per_page: form.data_per_page,
        }
      : { name: '', active: true, fields: [], start_index: 1, data_per_page: 20 },
  );
  const write = useWrite();
  const removal = useWrite();
  // One message under the form: the last write's failure.
  const error = write.error ?? removal.error;
  const setField = (i: number, patch: Partial<FormField>) =>
    setD((x) => ({ ...x, fields: x.fields.map((f, j) => (j === i ? { ...f, ...patch } : f)) }));
  const move = (i: number, by: number) =>
    setD((x) => {
      const fields = [...x.fields];
      const [f] = fields.splice(i, 1);
      fields.splice(i + by, 0, f!);
      return { ...x, fields };
    });

  const save = async () => {
    removal.setError(null);
    if (await write.run(() => (form ? formsApi.update(form.id, d) : formsApi.create(d)))) {
      toast({ message: FORM_STRINGS.saved });
      onDone();
    }
  };
  const remove = async () => {
    if (!form) return;
    if (await removal.run(() => formsApi.remove(form.id))) onDone();
    else write.setError(null);
  };

  return (
    <Stack gap="sm" data-testid="form-builder">
      <TextInput label="Form name" value={d.name} onChange={(e) => setD({ ...d, name: e.currentTarget.value })} />
      <Group grow>
        <NumberInput
          label="Entries a page"
          min={5}
          max={100}
          value={d.data_per_page}
          onChange={(v) => setD({ ...d, data_per_page: Number(v) || 20 })}
        />
        <NumberInput
          label="Number the first entry"
          min={0}
          value={d.start_index}
          onChange={(v) => setD({ ...d, start_index: Number(v) || 0 })}
        />
      </Group>
      <Switch
        label="Taking requests"
        checked={d.active}
        onChange={(e) => setD({ ...d, active: e.currentTarget.checked })}
      />
      <Divider label="Fields" labelPosition="left" />
      {d.fields.map((f, i) => (
        <Paper key={`${f.key}-${i}`} withBorder radius="md" p="sm" data-testid="form-field">
          <Stack gap="xs">
            <Group gap="xs" align="flex-end" wrap="wrap">
              <TextInput
                label="Label"
                value={f.label}
                onChange={(e) => setField(i, { label: e.currentTarget.value })}
                style={{ flex: 1, minWidth: 180 }}
              />
              <Select
                label="Kind"
                data={FORM_FIELD_TYPES.map((t) => ({ value: t, label: FORM_FIELD_TYPE_LABELS[t] }))}
                value={f.type}
                onChange={(v) => {
                  const type = (v as FormFieldType) ?? 'text';
                  // The customer's e-mail and phone fill the ticket (and find the contact) under these keys.
                  const own = type === 'email' || type === 'phone' ? type : null;
                  const free = own && !d.fields.some((x, j) => j !== i && x.key === own);
                  setField(i, free ? { type, key: own } : { type });
                }}
                allowDeselect={false}
                w={160}
              />
              <Checkbox
                label="Required"
                checked={f.required}
                onChange={(e) => setField(i, { required: e.currentTarget.checked })}
                mb={8}
              />
              <Group gap={2} mb={4}>
                <ActionIcon
                  variant="subtle"
                  aria-label={`Move ${f.label} up`}
                  disabled={i === 0}
                  onClick={() => move(i, -1)}
                >
                  <IconArrowUp size={16} />
                </ActionIcon>
                <ActionIcon
                  variant="subtle"
                  aria-label={`Move ${f.label} down`}
                  disabled={i === d.fields.length - 1}
                  onClick={() => move(i, 1)}
                >
                  <IconArrowDown size={16} />
                </ActionIcon>
                <ActionIcon
                  variant="subtle"
                  color="red"
                  aria-label={`Remove ${f.label}`}
                  onClick={() => setD({ ...d, fields: d.fields.filter((_, j) => j !== i) })}
                >
                  <IconTrash size={16} />
                </ActionIcon>
              </Group>
            </Group>
            <Text size="xs" c="dimmed">
              Key: {f.key}
            </Text>
            {f.type === 'select' && (
              <Textarea
                label="Options, one a line"
                autosize
                minRows={2}
                value={f.options.join('\n')}
                onChange={(e) => setField(i, { options: e.currentTarget.value.split('\n') })}
                onBlur={() => setField(i, { options: f.options.map((o) => o.trim()).filter(Boolean) })}
              />
            )}
          </Stack>
        </Paper>
      ))}
      <AddField taken={d.fields.map((f) => f.key)} onAdd={(f) => setD({ ...d, fields: [...d.fields, f] })} />
      {error && (
        <Text c="red" size="sm" role="alert">
          {error}
        </Text>
      )}
      <Group justify="space-between">
        {form && !form.main ? (
          <Button variant="subtle" color="red" onClick={() => void remove()}>
            Remove form
          </Button>
        ) : (
          <span />
        )}
        <Group gap="xs">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button onClick={() => void save()} loading={write.busy} data-testid="form-save">
            Save
          </Button>
        </Group>
      </Group>
    </Stack>
  );
}

function AddField({ taken, onAdd }: { taken: string[]; onAdd(f: FormField): void }) {
  const [label, setLabel] = useState('');
  const add = () => {
    if (!label.trim()) return;
    onAdd({ key: keyOf(label, taken), label: label.trim(), type: 'text', required: false, options: [] });
    setLabel('');
  };
  return (
    <Group gap="xs" align="flex-end">
      <TextInput
        label="New field"
        placeholder="Order number"
        value={label}
        onChange={(e) => setLabel(e.currentTarget.value)}
        onKeyDown={(e) => e.key === 'Enter' && add()}
        style={{ flex: 1 }}
        data-testid="form-field-new"
      />
      <Button variant="light" onClick={add} disabled={!label.trim()} data-testid="form-field-add">
        Add field
      </Button>
    </Group>
  );
}
