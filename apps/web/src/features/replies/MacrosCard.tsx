import {
  ActionIcon,
  Badge,
  Button,
  Group,
  MultiSelect,
  Paper,
  Select,
  Stack,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import {
  type Label,
  MACRO_ACTION_NAMES,
  type Macro,
  type MacroAction,
  type MacroActionType,
  REPLY_VARIABLE_NAMES,
  TICKET_PRIORITIES,
} from '@parley/contracts';
import { IconPlus, IconX } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { labelsApi } from '../../lib/api/labels';
import { statusOptions, useTicketStatuses } from '../../lib/api/ticketStatuses';
import { labelKeys, replyKeys } from '../../lib/queryKeys';
import { useWrite } from '../../lib/useWrite';
import { EntryActions, FormActions, ModalFormCard } from '../../ui/ModalFormCard';
import { toast, toastWrite } from '../../ui/toast';
import { repliesApi } from './api';
import { R } from './strings';

const FRESH: Record<MacroActionType, MacroAction> = {
  reply: { type: 'reply', text: '' },
  status: { type: 'status', status: 2 },
  add_labels: { type: 'add_labels', labels: [] },
  remove_labels: { type: 'remove_labels', labels: [] },
  assignee: { type: 'assignee', assignee: [] },
  priority: { type: 'priority', priority: 'H' },
};
const TYPE_OPTIONS = (Object.keys(MACRO_ACTION_NAMES) as MacroActionType[]).map((value) => ({
  value,
  label: MACRO_ACTION_NAMES[value],
}));
const PRIORITY_OPTIONS = TICKET_PRIORITIES.map((p) => ({ value: p || 'none', label: R.priorityNames[p] ?? p }));

/** One action's value control. */
function ActionValue({
  action,
  onChange,
  labels,
  users,
  statuses,
}: {
  action: MacroAction;
  onChange(a: MacroAction): void;
  labels: Label[];
  users: { value: string; label: string }[];
  statuses: { value: string; label: string }[];
}) {
  const labelOptions = labels.filter((l) => !l.removed).map((l) => ({ value: String(l.id), label: l.name }));
  switch (action.type) {
    case 'reply':
      return (
        <Textarea
          aria-label={R.body}
          autosize
          minRows={2}
          maxRows={8}
          value={action.text}
          placeholder={`Hi {{customer.name}}, ...  (${REPLY_VARIABLE_NAMES.map((n) => `{{${n}}}`).join(' ')})`}
          onChange={(e) => onChange({ ...action, text: e.currentTarget.value })}
        />
      );
    case 'status':
      return (
        <Select
          aria-label={R.status}
          data={statuses}
          value={String(action.status)}
          allowDeselect={false}
          onChange={(v) => onChange({ ...action, status: Number(v) })}
        />
      );
    case 'add_labels':
    case 'remove_labels':
      return (
        <MultiSelect
          aria-label={R.labels}
          data={labelOptions}
          value={action.labels.map(String)}
          searchable
          onChange={(v) => onChange({ ...action, labels: v.map(Number) })}
        />
      );
    case 'assignee':
      return (
        <MultiSelect
          aria-label={R.assignee}
          placeholder={action.assignee.length === 0 ? R.assignee : undefined}
          data={users}
          value={action.assignee}
          searchable
          onChange={(assignee) => onChange({ ...action, assignee })}
        />
      );
    case 'priority':
      return (
        <Select
          aria-label={R.priority}
          data={PRIORITY_OPTIONS}
          value={action.priority || 'none'}
          allowDeselect={false}
          onChange={(v) =>
            onChange({ ...action, priority: (v === 'none' ? '' : v) as (typeof TICKET_PRIORITIES)[number] })
          }
        />
      );
  }
}

/** A short line saying what an action does, for the list. */
function describe(a: MacroAction, labels: Label[], statuses: { value: string; label: string }[]): string {
  const labelNames = (ids: number[]) => ids.map((id) => labels.find((l) => l.id === id)?.name ?? `#${id}`).join(', ');
  switch (a.type) {
    case 'reply':
      return `${MACRO_ACTION_NAMES.reply}: "${a.text.length > 40 ? `${a.text.slice(0, 40)}…` : a.text}"`;
    case 'status':
      return `${MACRO_ACTION_NAMES.status}: ${statuses.find((s) => s.value === String(a.status))?.label ?? a.status}`;
    case 'add_labels':
    case 'remove_labels':
      return `${MACRO_ACTION_NAMES[a.type]}: ${labelNames(a.labels)}`;
    case 'assignee':
      return `${MACRO_ACTION_NAMES.assignee}: ${a.assignee.join(', ') || R.priorityNames['']}`;
    case 'priority':
      return `${MACRO_ACTION_NAMES.priority}: ${R.priorityNames[a.priority]}`;
  }
}

/** A macro in the form: a new one has no id yet. */
interface MacroDraft {
  id?: number;
  name: string;
  actions: MacroAction[];
}

function MacroForm({
  macro,
  onClose,
  onSaved,
  labels,
  users,
  statuses,
}: {
  macro: MacroDraft;
  onClose(): void;
  onSaved(): void;
  labels: Label[];
  users: { value: string; label: string }[];
  statuses: { value: string; label: string }[];
}) {
  const [name, setName] = useState(macro.name);
  const [actions, setActions] = useState<MacroAction[]>(macro.actions);
  const { run, busy, error } = useWrite();
  const save = async () => {
    const input = { name, actions };
    if (await run(() => (macro.id ? repliesApi.updateMacro(macro.id, input) : repliesApi.createMacro(input)))) {
      toast({ message: R.saved });
      onSaved();
    }
  };
  return (
    <Stack>
      <TextInput
        label={R.name}
        value={name}
        onChange={(e) => setName(e.currentTarget.value)}
        data-testid="macro-name"
        data-autofocus
      />
      <Text size="sm" fw={500}>
        {R.actions}
      </Text>
      {actions.map((a, i) => (
        <Paper key={`${i}-${a.type}`} withBorder p="xs" data-testid="macro-action">
          <Group align="flex-start" wrap="nowrap" gap="xs">
            <Stack gap={6} style={{ flex: 1, minWidth: 0 }}>
              <Select
                aria-label={R.actions}
                data={TYPE_OPTIONS}
                value={a.type}
                allowDeselect={false}
                onChange={(v) => setActions(actions.map((x, j) => (j === i ? FRESH[v as MacroActionType] : x)))}
              />
              <ActionValue
                action={a}
                labels={labels}
                users={users}
                statuses={statuses}
                onChange={(next) => setActions(actions.map((x, j) => (j === i ? next : x)))}
              />
            </Stack>
            <ActionIcon
              variant="subtle"
              color="gray"
              aria-label={R.removeAction}
              onClick={() => setActions(actions.filter((_, j) => j !== i))}
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
          onClick={() => setActions([...actions, FRESH.reply])}
        >
          {R.addAction}
        </Button>
      </Group>
      <FormActions
        error={error}
        testId="macro"
        cancelLabel={R.cancel}
        saveLabel={R.save}
        saving={busy}
        onCancel={onClose}
        onSave={() => void save()}
      />
    </Stack>
  );
}

/** Settings -> Macros (admins): the account's macros, each a named list of actions. */
export function MacrosCard() {
  const qc = useQueryClient();
  const macros = useQuery({ queryKey: replyKeys.macros, queryFn: repliesApi.macros });
  const labels = useQuery({ queryKey: labelKeys.list, queryFn: labelsApi.list });
  const usersQ = useQuery({ queryKey: replyKeys.users, queryFn: repliesApi.users });
  const statuses = statusOptions(useTicketStatuses());
  const users = (usersQ.data ?? [])
    .filter((u) => u.active)
    .map((u) => ({ value: u.username, label: u.name ? `${u.name} (${u.username})` : u.username }));
  const refresh = () => qc.invalidateQueries({ queryKey: replyKeys.macros });
  const remove = async (m: Macro) => {
    if (await toastWrite(() => repliesApi.deleteMacro(m.id), R.deleted)) await refresh();
  };
  return (
    <ModalFormCard<MacroDraft>
      title={R.macrosTitle}
      hint={R.macrosIntro}
      testId="macros-card"
      addLabel={R.newMacro}
      addTestId="macro-new"
      editTitle={R.editMacro}
      blank={() => ({ name: '', actions: [FRESH.reply] })}
      form={(macro, done) => (
        <MacroForm macro={macro} labels={labels.data ?? []} users={users} statuses={statuses} {...done} />
      )}
      onSaved={() => void refresh()}
    >
      {(edit) =>
        (macros.data ?? []).length === 0 ? (
          <Text c="dimmed" size="sm">
            {macros.isPending ? '…' : R.emptyMacros}
          </Text>
        ) : (
          macros.data!.map((m) => (
            <Paper key={m.id} withBorder p="sm" data-testid="macro-row">
              <Group justify="space-between" wrap="nowrap" align="flex-start">
                <Stack gap={4} style={{ minWidth: 0 }}>
                  <Text fw={600}>{m.name}</Text>
                  <Group gap={4}>
                    {m.actions.map((a, i) => (
                      <Badge key={`${i}-${a.type}`} variant="light" tt="none" maw="100%">
                        {describe(a, labels.data ?? [], statuses)}
                      </Badge>
                    ))}
                  </Group>
                </Stack>
                <EntryActions
                  name={m.name}
                  editLabel={R.edit}
                  deleteLabel={R.delete}
                  onEdit={() => edit({ id: m.id, name: m.name, actions: m.actions })}
                  onDelete={() => void remove(m)}
                />
              </Group>
            </Paper>
          ))
        )
      }
    </ModalFormCard>
  );
}
