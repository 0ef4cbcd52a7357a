import { MultiSelect, Select, Textarea } from '@mantine/core';
import {
  type Label,
  MACRO_ACTION_NAMES,
  type MacroAction,
  type MacroActionType,
  REPLY_VARIABLE_NAMES,
  TICKET_PRIORITIES,
} from '@parley/contracts';

/**
 * The fields of one macro action (reply, status, labels, assignees, priority) and its line in a list: the
 * macros' card and the automation rules' card edit these actions alike.
 */
export const MACRO_FIELD_STRINGS = {
  body: 'Reply text',
  status: 'Status',
  labels: 'Labels',
  assignee: 'Assignees (none: unassign)',
  priority: 'Priority',
  priorityNames: { H: 'High', M: 'Medium', L: 'Low', '': 'None' } as Record<string, string>,
} as const;
const F = MACRO_FIELD_STRINGS;

export const FRESH_MACRO_ACTION: Record<MacroActionType, MacroAction> = {
  reply: { type: 'reply', text: '' },
  status: { type: 'status', status: 2 },
  add_labels: { type: 'add_labels', labels: [] },
  remove_labels: { type: 'remove_labels', labels: [] },
  assignee: { type: 'assignee', assignee: [] },
  priority: { type: 'priority', priority: 'H' },
};
export const MACRO_TYPE_OPTIONS = (Object.keys(MACRO_ACTION_NAMES) as MacroActionType[]).map((value) => ({
  value,
  label: MACRO_ACTION_NAMES[value],
}));
export const PRIORITY_OPTIONS = TICKET_PRIORITIES.map((p) => ({ value: p || 'none', label: F.priorityNames[p] ?? p }));

/** One action's value control. */
export function MacroActionValue({
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
          aria-label={F.body}
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
          aria-label={F.status}
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
          aria-label={F.labels}
          data={labelOptions}
          value={action.labels.map(String)}
          searchable
          onChange={(v) => onChange({ ...action, labels: v.map(Number) })}
        />
      );
    case 'assignee':
      return (
        <MultiSelect
          aria-label={F.assignee}
          placeholder={action.assignee.length === 0 ? F.assignee : undefined}
          data={users}
          value={action.assignee}
          searchable
          onChange={(assignee) => onChange({ ...action, assignee })}
        />
      );
    case 'priority':
      return (
        <Select
          aria-label={F.priority}
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
export function describeMacroAction(
  a: MacroAction,
  labels: Label[],
  statuses: { value: string; label: string }[],
): string {
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
      return `${MACRO_ACTION_NAMES.assignee}: ${a.assignee.join(', ') || F.priorityNames['']}`;
    case 'priority':
      return `${MACRO_ACTION_NAMES.priority}: ${F.priorityNames[a.priority]}`;
  }
}
