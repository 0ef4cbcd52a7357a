import {
  ActionIcon,
  Badge,
  Button,
  Group,
  MultiSelect,
  Paper,
  Select,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import {
  AUTOMATION_ACTION_NAMES,
  AUTOMATION_CONDITION_NAMES,
  AUTOMATION_EVENT_ACTIONS,
  AUTOMATION_EVENT_CONDITIONS,
  AUTOMATION_EVENT_NAMES,
  AUTOMATION_EVENTS,
  type AutomationAction,
  type AutomationActionType,
  type AutomationCondition,
  type AutomationConditionField,
  type AutomationDryRunAnswer,
  type AutomationEvent,
  type AutomationRule,
  type AutomationRuleInput,
  CHANNELS,
  type Label,
  type MacroAction,
} from '@parley/contracts';
import { IconArrowDown, IconArrowUp } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useDepartments } from '../../lib/api/departments';
import { labelsApi } from '../../lib/api/labels';
import { statusOptions, useTicketStatuses } from '../../lib/api/ticketStatuses';
import { formatDateTime } from '../../lib/dates';
import { automationKeys, labelKeys } from '../../lib/queryKeys';
import { useWrite } from '../../lib/useWrite';
import {
  describeMacroAction,
  FRESH_MACRO_ACTION,
  MacroActionValue,
  PRIORITY_OPTIONS,
} from '../../ui/MacroActionFields';
import { EntryActions, FormActions, ModalFormCard } from '../../ui/ModalFormCard';
import { SettingsCard } from '../../ui/SettingsCard';
import { StepList } from '../../ui/StepList';
import { toast, toastWrite } from '../../ui/toast';
import { automationApi } from './api';
import { A } from './strings';

type Option = { value: string; label: string };

const FRESH_CONDITION: Record<AutomationConditionField, AutomationCondition> = {
  channel: { field: 'channel', in: ['WHATSAPP'] },
  department: { field: 'department', in: [] },
  labels: { field: 'labels', has: 'any', labels: [] },
  priority: { field: 'priority', in: ['H'] },
  status: { field: 'status', in: [0] },
  text: { field: 'text', contains: '' },
  customer: { field: 'customer', attribute: 'email', op: 'contains', value: '' },
  business_hours: { field: 'business_hours', within: true },
  rating: { field: 'rating', at_most: 2 },
  page: { field: 'page', contains: '' },
};
const MACRO_TYPES = new Set<string>(Object.keys(FRESH_MACRO_ACTION));
const FRESH_ACTION = (type: AutomationActionType): AutomationAction => {
  if (MACRO_TYPES.has(type)) return FRESH_MACRO_ACTION[type as MacroAction['type']];
  switch (type) {
    case 'canned_reply':
      return { type, reply_id: 0 };
    case 'department':
      return { type, department_id: 0 };
    case 'auto_assign':
      return { type, strategy: 'round_robin' };
    case 'note':
      return { type, text: '' };
    case 'webhook':
      return { type, webhook_id: 0 };
    case 'notify_department':
      return { type, department_id: 0, text: '' };
    default:
      return { type: 'notify', users: [], text: '' };
  }
};
const EVENT_OPTIONS = AUTOMATION_EVENTS.map((value) => ({ value, label: AUTOMATION_EVENT_NAMES[value] }));
/** The conditions and actions an event allows (the server refuses the others), in the names' order. */
const conditionOptions = (event: AutomationEvent) =>
  (Object.keys(AUTOMATION_CONDITION_NAMES) as AutomationConditionField[])
    .filter((value) => AUTOMATION_EVENT_CONDITIONS[event].includes(value))
    .map((value) => ({ value, label: AUTOMATION_CONDITION_NAMES[value] }));
const actionOptions = (event: AutomationEvent) =>
  (Object.keys(AUTOMATION_ACTION_NAMES) as AutomationActionType[])
    .filter((value) => AUTOMATION_EVENT_ACTIONS[event].includes(value))
    .map((value) => ({ value, label: AUTOMATION_ACTION_NAMES[value] }));
/** The action the Add button adds: one the event allows ("Text contains" suits every event). */ const addedAction = (
  event: AutomationEvent,
): AutomationActionType => (AUTOMATION_EVENT_ACTIONS[event].includes('add_labels') ? 'add_labels' : 'notify');
const CHANNEL_OPTIONS = (Object.keys(CHANNELS) as (keyof typeof CHANNELS)[])
  .filter((c) => c !== 'chat')
  .map((value) => ({ value, label: `${CHANNELS[value]} (${value})` }));
const toOptions = (o: Record<string, string>) => Object.entries(o).map(([value, label]) => ({ value, label }));

/** What the card's fields pick from. */
interface Choices {
  labels: Label[];
  departments: Option[];
  statuses: Option[];
  users: Option[];
  canned: Option[];
  webhooks: Option[];
}

/** One condition's value controls. */
function ConditionValue({
  c,
  onChange,
  choices,
}: {
  c: AutomationCondition;
  onChange(c: AutomationCondition): void;
  choices: Choices;
}) {
  const labelOptions = choices.labels.filter((l) => !l.removed).map((l) => ({ value: String(l.id), label: l.name }));
  switch (c.field) {
    case 'channel':
      return (
        <MultiSelect
          aria-label={A.channels}
          data={CHANNEL_OPTIONS}
          value={c.in}
          searchable
          onChange={(v) => onChange({ ...c, in: v as typeof c.in })}
        />
      );
    case 'department':
      return (
        <MultiSelect
          aria-label={A.departments}
          data={[{ value: '0', label: A.noDepartment }, ...choices.departments]}
          value={c.in.map(String)}
          onChange={(v) => onChange({ ...c, in: v.map(Number) })}
        />
      );
    case 'labels':
      return (
        <Group gap="xs" grow>
          <Select
            aria-label={A.labels}
            data={toOptions(A.has)}
            value={c.has}
            allowDeselect={false}
            onChange={(v) => onChange({ ...c, has: v as typeof c.has })}
          />
          <MultiSelect
            aria-label={A.labels}
            data={labelOptions}
            value={c.labels.map(String)}
            searchable
            onChange={(v) => onChange({ ...c, labels: v.map(Number) })}
          />
        </Group>
      );
    case 'priority':
      return (
        <MultiSelect
          aria-label={A.priorities}
          data={PRIORITY_OPTIONS}
          value={c.in.map((p) => p || 'none')}
          onChange={(v) => onChange({ ...c, in: v.map((p) => (p === 'none' ? '' : p)) as typeof c.in })}
        />
      );
    case 'status':
      return (
        <MultiSelect
          aria-label={A.statuses}
          data={choices.statuses}
          value={c.in.map(String)}
          onChange={(v) => onChange({ ...c, in: v.map(Number) })}
        />
      );
    case 'text':
      return (
        <TextInput
          aria-label={A.text}
          value={c.contains}
          placeholder="refund"
          onChange={(e) => onChange({ ...c, contains: e.currentTarget.value })}
        />
      );
    case 'customer':
      return (
        <Group gap="xs" grow>
          <Select
            aria-label={AUTOMATION_CONDITION_NAMES.customer}
            data={toOptions(A.attribute)}
            value={c.attribute}
            allowDeselect={false}
            onChange={(v) => onChange({ ...c, attribute: v as typeof c.attribute })}
          />
          <Select
            aria-label={A.op.contains}
            data={toOptions(A.op)}
            value={c.op}
            allowDeselect={false}
            onChange={(v) => onChange({ ...c, op: v as typeof c.op })}
          />
          {(c.op === 'contains' || c.op === 'equals') && (
            <TextInput
              aria-label={A.text}
              value={c.value}
              onChange={(e) => onChange({ ...c, value: e.currentTarget.value })}
            />
          )}
        </Group>
      );
    case 'business_hours':
      return (
        <Select
          aria-label={AUTOMATION_CONDITION_NAMES.business_hours}
          data={[
            { value: 'in', label: A.within },
            { value: 'out', label: A.outside },
          ]}
          value={c.within ? 'in' : 'out'}
          allowDeselect={false}
          onChange={(v) => onChange({ ...c, within: v === 'in' })}
        />
      );
    case 'rating':
      return (
        <Select
          aria-label={A.rating}
          data={['1', '2', '3', '4', '5']}
          value={String(c.at_most)}
          allowDeselect={false}
          onChange={(v) => onChange({ ...c, at_most: Number(v) })}
        />
      );
    case 'page':
      return (
        <TextInput
          aria-label={A.page}
          value={c.contains}
          placeholder="example.com/pricing"
          onChange={(e) => onChange({ ...c, contains: e.currentTarget.value })}
        />
      );
  }
}

/** One action's value controls: the macros' own for their actions, ours for the rest. */
function ActionValue({
  a,
  onChange,
  choices,
}: {
  a: AutomationAction;
  onChange(a: AutomationAction): void;
  choices: Choices;
}) {
  switch (a.type) {
    case 'canned_reply':
      return (
        <Select
          aria-label={A.cannedReply}
          data={choices.canned}
          value={a.reply_id ? String(a.reply_id) : null}
          onChange={(v) => onChange({ ...a, reply_id: Number(v) })}
        />
      );
    case 'department':
      return (
        <Select
          aria-label={A.department}
          data={choices.departments}
          value={a.department_id ? String(a.department_id) : null}
          onChange={(v) => onChange({ ...a, department_id: Number(v) })}
        />
      );
    case 'auto_assign':
      return (
        <Select
          aria-label={AUTOMATION_ACTION_NAMES.auto_assign}
          data={toOptions(A.strategy)}
          value={a.strategy}
          allowDeselect={false}
          onChange={(v) => onChange({ ...a, strategy: v as typeof a.strategy })}
        />
      );
    case 'note':
      return (
        <Textarea
          aria-label={A.note}
          autosize
          minRows={2}
          value={a.text}
          onChange={(e) => onChange({ ...a, text: e.currentTarget.value })}
        />
      );
    case 'notify':
      return (
        <Stack gap={6}>
          <MultiSelect
            aria-label={A.notifyUsers}
            data={choices.users}
            value={a.users}
            searchable
            onChange={(users) => onChange({ ...a, users })}
          />
          <TextInput
            aria-label={A.notifyText}
            value={a.text}
            onChange={(e) => onChange({ ...a, text: e.currentTarget.value })}
          />
        </Stack>
      );
    case 'notify_department':
      return (
        <Stack gap={6}>
          <Select
            aria-label={A.department}
            data={choices.departments}
            value={a.department_id ? String(a.department_id) : null}
            onChange={(v) => onChange({ ...a, department_id: Number(v) })}
          />
          <TextInput
            aria-label={A.notifyText}
            value={a.text}
            onChange={(e) => onChange({ ...a, text: e.currentTarget.value })}
          />
        </Stack>
      );
    case 'webhook':
      return (
        <Select
          aria-label={A.webhook}
          data={choices.webhooks}
          value={a.webhook_id ? String(a.webhook_id) : null}
          placeholder={choices.webhooks.length === 0 ? A.noWebhooks : undefined}
          onChange={(v) => onChange({ ...a, webhook_id: Number(v) })}
        />
      );
    default:
      return (
        <MacroActionValue
          action={a}
          labels={choices.labels}
          users={choices.users}
          statuses={choices.statuses}
          onChange={onChange}
        />
      );
  }
}

/** A short line for an action in the list. */
function describeAction(a: AutomationAction, choices: Choices): string {
  const name = AUTOMATION_ACTION_NAMES[a.type];
  const pick = (list: Option[], v: number | string) => list.find((o) => o.value === String(v))?.label ?? `#${v}`;
  switch (a.type) {
    case 'canned_reply':
      return `${name}: ${pick(choices.canned, a.reply_id)}`;
    case 'department':
      return `${name}: ${pick(choices.departments, a.department_id)}`;
    case 'auto_assign':
      return `${name}: ${A.strategy[a.strategy]}`;
    case 'note':
      return `${name}: "${a.text.length > 30 ? `${a.text.slice(0, 30)}…` : a.text}"`;
    case 'notify':
      return `${name}: ${a.users.join(', ')}`;
    case 'notify_department':
      return `${name}: ${pick(choices.departments, a.department_id)}`;
    case 'webhook':
      return `${name}: ${pick(choices.webhooks, a.webhook_id)}`;
    default:
      return describeMacroAction(a, choices.labels, choices.statuses);
  }
}

/** A rule in the form: a new one has no id yet. */
interface RuleDraft {
  id?: number;
  name: string;
  event: AutomationEvent;
  enabled: boolean;
  conditions: AutomationCondition[];
  actions: AutomationAction[];
}

function RuleForm({
  rule,
  onClose,
  onSaved,
  choices,
}: {
  rule: RuleDraft;
  onClose(): void;
  onSaved(): void;
  choices: Choices;
}) {
  const [draft, setDraft] = useState<RuleDraft>(rule);
  const [dry, setDry] = useState<AutomationDryRunAnswer['data'] | null>(null);
  const { run, busy, error } = useWrite();
  const input = (): AutomationRuleInput => ({
    name: draft.name,
    event: draft.event,
    enabled: draft.enabled,
    conditions: draft.conditions,
    actions: draft.actions,
  });
  const save = async () => {
    if (await run(() => (rule.id ? automationApi.update(rule.id, input()) : automationApi.create(input())))) {
      toast({ message: A.saved });
      onSaved();
    }
  };
  const dryRun = () => run(async () => setDry(await automationApi.dryRun(input())));
  const set = (patch: Partial<RuleDraft>) => {
    setDraft({ ...draft, ...patch });
    setDry(null);
  };
  return (
    <Stack>
      <TextInput
        label={A.name}
        value={draft.name}
        onChange={(e) => set({ name: e.currentTarget.value })}
        data-testid="rule-name"
        data-autofocus
      />
      <Select
        label={A.when}
        data={EVENT_OPTIONS}
        value={draft.event}
        allowDeselect={false}
        data-testid="rule-event"
        onChange={(v) => {
          // Another event keeps only the conditions and actions it allows (a queued live chat has no ticket).
          const event = v as AutomationEvent;
          const actions = draft.actions.filter((a) => AUTOMATION_EVENT_ACTIONS[event].includes(a.type));
          set({
            event,
            conditions: draft.conditions.filter((c) => AUTOMATION_EVENT_CONDITIONS[event].includes(c.field)),
            actions: actions.length > 0 ? actions : [FRESH_ACTION(addedAction(event))],
          });
        }}
      />
      {draft.event === 'livechat_queued' && (
        <Text size="sm" c="dimmed" data-testid="rule-livechat-hint">
          {A.liveChatHint}
        </Text>
      )}
      <StepList
        title={A.conditions}
        items={draft.conditions}
        onChange={(conditions) => set({ conditions })}
        kindOf={(c) => c.field}
        kinds={conditionOptions(draft.event)}
        fresh={(k: AutomationConditionField) => FRESH_CONDITION[k]}
        render={(c, change) => <ConditionValue c={c} choices={choices} onChange={change} />}
        testId="rule-condition"
        kindLabel={A.conditions}
        removeLabel={A.removeCondition}
        addLabel={A.addCondition}
        addTestId="rule-add-condition"
        added="text"
        empty={
          <Text size="sm" c="dimmed">
            {A.noConditions}
          </Text>
        }
      />
      <StepList
        title={A.actions}
        items={draft.actions}
        onChange={(actions) => set({ actions })}
        kindOf={(a) => a.type}
        kinds={actionOptions(draft.event)}
        fresh={FRESH_ACTION}
        render={(a, change) => <ActionValue a={a} choices={choices} onChange={change} />}
        testId="rule-action"
        kindLabel={A.actions}
        removeLabel={A.removeAction}
        addLabel={A.addAction}
        addTestId="rule-add-action"
        added={addedAction(draft.event)}
        extra={
          <Button
            variant="default"
            size="compact-sm"
            data-testid="rule-dry-run"
            loading={busy}
            onClick={() => void dryRun()}
          >
            {A.dryRun}
          </Button>
        }
      />
      {dry && draft.event === 'livechat_queued' && (
        <Stack gap={4} data-testid="rule-dry-run-result">
          <Text size="sm">
            {dry.chats.length === 0 ? A.dryRunNoChats : A.dryRunChats(dry.chats.length, dry.checked)}
          </Text>
          {dry.chats.slice(0, 20).map((c) => (
            <Text key={c.id} size="sm" c="dimmed" truncate>
              {formatDateTime(c.queued_at)} {c.name}: {c.message}
            </Text>
          ))}
        </Stack>
      )}
      {dry && draft.event !== 'livechat_queued' && (
        <Stack gap={4} data-testid="rule-dry-run-result">
          <Text size="sm">
            {dry.tickets.length === 0 ? A.dryRunNone : A.dryRunResult(dry.tickets.length, dry.checked)}
          </Text>
          {dry.tickets.slice(0, 20).map((t) => (
            <Text key={t.id} size="sm" c="dimmed" truncate>
              #{t.ticket_number} {t.title} ({t.channel})
            </Text>
          ))}
        </Stack>
      )}
      <FormActions
        error={error}
        testId="rule"
        cancelLabel={A.cancel}
        saveLabel={A.save}
        saving={busy}
        onCancel={onClose}
        onSave={() => void save()}
      />
    </Stack>
  );
}

/** The latest runs of the account's rules: what matched and what each did, or why it stopped. */
function RunLog() {
  const runs = useQuery({ queryKey: automationKeys.runs, queryFn: automationApi.runs });
  const list = runs.data ?? [];
  return (
    <SettingsCard title={A.runLog} testId="automation-runs">
      {list.length === 0 ? (
        <Text c="dimmed" size="sm">
          {runs.isPending ? '…' : A.runLogEmpty}
        </Text>
      ) : (
        <Stack gap="xs">
          {list.map((r) => (
            <Paper key={r.id} withBorder p="xs" data-testid="automation-run">
              <Group justify="space-between" gap="xs" wrap="nowrap" align="flex-start">
                <Stack gap={0} style={{ minWidth: 0 }}>
                  <Text size="sm" fw={500}>
                    {r.rule_name}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {r.livechat_id === null ? `#${r.ticket_number}` : A.liveChatRun(r.livechat_id)} ·{' '}
                    {AUTOMATION_EVENT_NAMES[r.event as AutomationEvent] ?? r.event} · {formatDateTime(r.created_at)}
                  </Text>
                </Stack>
                <Badge
                  variant="light"
                  color={r.outcome === 'stopped' ? 'red' : r.outcome === 'applied' ? 'teal' : 'gray'}
                  tt="none"
                  style={{ flexShrink: 0 }}
                >
                  {A.outcome[r.outcome]}
                </Badge>
              </Group>
              <Text size="xs" mt={4}>
                {r.matched.join('; ')}
              </Text>
              <Text size="xs" c={r.outcome === 'stopped' ? 'red' : 'dimmed'}>
                {r.reason || r.did.join('; ')}
              </Text>
            </Paper>
          ))}
        </Stack>
      )}
    </SettingsCard>
  );
}

/** Settings -> Automation (admins): the account's rules in running order, and their run log. */
export function AutomationCard() {
  const qc = useQueryClient();
  const rules = useQuery({ queryKey: automationKeys.rules, queryFn: automationApi.rules });
  const labels = useQuery({ queryKey: labelKeys.list, queryFn: labelsApi.list });
  const departments = useDepartments();
  const usersQ = useQuery({ queryKey: [...automationKeys.all, 'users'], queryFn: automationApi.users });
  const canned = useQuery({ queryKey: automationKeys.canned, queryFn: automationApi.canned });
  const webhooks = useQuery({ queryKey: automationKeys.webhooks, queryFn: automationApi.webhooks });
  const choices: Choices = {
    labels: labels.data ?? [],
    departments: (departments.data ?? []).map((d) => ({ value: String(d.id), label: d.name })),
    statuses: statusOptions(useTicketStatuses()),
    users: (usersQ.data ?? [])
      .filter((u) => u.active)
      .map((u) => ({ value: u.username, label: u.name ? `${u.name} (${u.username})` : u.username })),
    canned: (canned.data ?? []).map((c) => ({ value: String(c.id), label: c.title })),
    webhooks: (webhooks.data ?? []).map((w) => ({ value: String(w.id), label: w.url })),
  };
  const refresh = () => qc.invalidateQueries({ queryKey: automationKeys.all });
  const list = rules.data ?? [];
  const write = useWrite({ invalidate: automationKeys.all });
  const toggle = (r: AutomationRule) => write.run(() => automationApi.update(r.id, { ...r, enabled: !r.enabled }));
  const move = (i: number, by: -1 | 1) => {
    const ids = list.map((r) => r.id);
    [ids[i], ids[i + by]] = [ids[i + by]!, ids[i]!];
    return write.run(() => automationApi.reorder(ids));
  };
  const remove = async (r: AutomationRule) => {
    if (await toastWrite(() => automationApi.remove(r.id), A.deleted)) await refresh();
  };
  return (
    <Stack>
      <ModalFormCard<RuleDraft>
        title={A.title}
        hint={A.intro}
        testId="automation-card"
        addLabel={A.newRule}
        addTestId="rule-new"
        editTitle={A.editRule}
        blank={() => ({
          name: '',
          event: 'customer_message',
          enabled: true,
          conditions: [],
          actions: [FRESH_ACTION('add_labels')],
        })}
        form={(rule, done) => <RuleForm rule={rule} choices={choices} {...done} />}
        onSaved={() => void refresh()}
      >
        {(edit) => (
          <Stack gap="xs">
            {write.error && (
              <Text c="red" size="sm" role="alert">
                {write.error}
              </Text>
            )}
            {list.length === 0 ? (
              <Text c="dimmed" size="sm">
                {rules.isPending ? '…' : A.noRules}
              </Text>
            ) : (
              list.map((r, i) => (
                <Paper key={r.id} withBorder p="sm" data-testid="rule-row" opacity={r.enabled ? 1 : 0.65}>
                  <Group justify="space-between" wrap="nowrap" align="flex-start">
                    <Group gap={4} wrap="nowrap" align="flex-start">
                      <Stack gap={0}>
                        <ActionIcon
                          variant="subtle"
                          color="gray"
                          size="sm"
                          aria-label={A.moveUp(r.name)}
                          disabled={i === 0 || write.busy}
                          onClick={() => void move(i, -1)}
                        >
                          <IconArrowUp size={14} />
                        </ActionIcon>
                        <ActionIcon
                          variant="subtle"
                          color="gray"
                          size="sm"
                          aria-label={A.moveDown(r.name)}
                          disabled={i === list.length - 1 || write.busy}
                          onClick={() => void move(i, 1)}
                        >
                          <IconArrowDown size={14} />
                        </ActionIcon>
                      </Stack>
                      <Stack gap={4} style={{ minWidth: 0 }}>
                        <Group gap="xs">
                          <Text fw={600}>
                            {i + 1}. {r.name}
                          </Text>
                          {!r.enabled && (
                            <Badge variant="outline" color="gray" tt="none">
                              {A.off}
                            </Badge>
                          )}
                        </Group>
                        <Text size="sm" c="dimmed">
                          {AUTOMATION_EVENT_NAMES[r.event]}
                          {r.conditions.length > 0 &&
                            ` · ${r.conditions.map((c) => AUTOMATION_CONDITION_NAMES[c.field]).join(', ')}`}
                        </Text>
                        <Group gap={4}>
                          {r.actions.map((a, j) => (
                            <Badge key={`${j}-${a.type}`} variant="light" tt="none" maw="100%">
                              {describeAction(a, choices)}
                            </Badge>
                          ))}
                        </Group>
                      </Stack>
                    </Group>
                    <Group gap="xs" wrap="nowrap">
                      <Switch
                        aria-label={A.switchOff(r.name)}
                        checked={r.enabled}
                        disabled={write.busy}
                        onChange={() => void toggle(r)}
                      />
                      <EntryActions
                        name={r.name}
                        editLabel={A.edit}
                        deleteLabel={A.delete}
                        onEdit={() => edit({ ...r })}
                        onDelete={() => void remove(r)}
                      />
                    </Group>
                  </Group>
                </Paper>
              ))
            )}
          </Stack>
        )}
      </ModalFormCard>
      <RunLog />
    </Stack>
  );
}
