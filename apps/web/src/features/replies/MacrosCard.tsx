import { Badge, Group, Paper, Stack, Text, TextInput } from '@mantine/core';
import type { Label, Macro, MacroAction, MacroActionType } from '@parley/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { labelsApi } from '../../lib/api/labels';
import { statusOptions, useTicketStatuses } from '../../lib/api/ticketStatuses';
import { labelKeys, replyKeys } from '../../lib/queryKeys';
import { useWrite } from '../../lib/useWrite';
import {
  describeMacroAction,
  FRESH_MACRO_ACTION,
  MACRO_TYPE_OPTIONS,
  MacroActionValue,
} from '../../ui/MacroActionFields';
import { EntryActions, FormActions, ModalFormCard } from '../../ui/ModalFormCard';
import { StepList } from '../../ui/StepList';
import { toast, toastWrite } from '../../ui/toast';
import { repliesApi } from './api';
import { R } from './strings';

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
      <StepList
        title={R.actions}
        items={actions}
        onChange={setActions}
        kindOf={(a) => a.type}
        kinds={MACRO_TYPE_OPTIONS}
        fresh={(k: MacroActionType) => FRESH_MACRO_ACTION[k]}
        render={(a, change) => (
          <MacroActionValue action={a} labels={labels} users={users} statuses={statuses} onChange={change} />
        )}
        testId="macro-action"
        kindLabel={R.actions}
        removeLabel={R.removeAction}
        addLabel={R.addAction}
        added="reply"
      />
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
      blank={() => ({ name: '', actions: [FRESH_MACRO_ACTION.reply] })}
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
                        {describeMacroAction(a, labels.data ?? [], statuses)}
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
