import { Badge, Button, Checkbox, Group, MultiSelect, Stack, Table, Text, Textarea, TextInput } from '@mantine/core';
import {
  type CannedReply,
  type CannedReplyInput,
  CHANNELS,
  channelName,
  REPLY_VARIABLE_NAMES,
  REPLY_VARIABLES,
} from '@parley/contracts';
import { IconSearch } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { replyKeys } from '../../lib/queryKeys';
import { useWrite } from '../../lib/useWrite';
import { EntryActions, FormActions, ModalFormCard } from '../../ui/ModalFormCard';
import { toast, toastWrite } from '../../ui/toast';
import { repliesApi } from './api';
import { R } from './strings';

/** Channel choices, one per display name (EMAIL and GRAPH_EMAIL both read "Email"). */
const CHANNEL_OPTIONS = Object.entries(CHANNELS).map(([value, label]) =>
  value === 'GRAPH_EMAIL' ? { value, label: 'Email (Microsoft 365)' } : { value, label },
);

interface Draft {
  id?: number;
  title: string;
  shortcut: string;
  body: string;
  channels: string[];
  shared: boolean;
}
const blank: Draft = { title: '', shortcut: '', body: '', channels: [], shared: false };

/** The form of one canned reply, with variable chips that insert at the caret. */
function CannedReplyForm({
  draft,
  admin,
  onClose,
  onSaved,
}: {
  draft: Draft;
  admin: boolean;
  onClose(): void;
  onSaved(): void;
}) {
  const [d, setD] = useState(draft);
  const { run, busy, error } = useWrite();
  const body = useRef<HTMLTextAreaElement>(null);
  const insertVariable = (name: string) => {
    const el = body.current;
    const at = el?.selectionStart ?? d.body.length;
    const token = `{{${name}}}`;
    setD({ ...d, body: d.body.slice(0, at) + token + d.body.slice(el?.selectionEnd ?? at) });
    requestAnimationFrame(() => {
      el?.focus();
      el?.setSelectionRange(at + token.length, at + token.length);
    });
  };
  const save = async () => {
    const input = { ...d, channels: d.channels } as CannedReplyInput;
    if (await run(() => (d.id ? repliesApi.updateCanned(d.id, input) : repliesApi.createCanned(input)))) {
      toast({ message: R.saved });
      onSaved();
    }
  };
  return (
    <Stack>
      <TextInput
        label={R.title}
        value={d.title}
        onChange={(e) => setD({ ...d, title: e.currentTarget.value })}
        data-testid="canned-title"
        data-autofocus
      />
      <TextInput
        label={R.shortcut}
        description={R.shortcutHint}
        leftSection={<Text size="sm">/</Text>}
        value={d.shortcut}
        onChange={(e) => setD({ ...d, shortcut: e.currentTarget.value })}
        data-testid="canned-shortcut"
      />
      <Textarea
        ref={body}
        label={R.body}
        autosize
        minRows={4}
        maxRows={12}
        value={d.body}
        onChange={(e) => setD({ ...d, body: e.currentTarget.value })}
        data-testid="canned-body"
      />
      <Stack gap={4}>
        <Text size="sm" fw={500}>
          {R.variables}
        </Text>
        <Group gap={6}>
          {REPLY_VARIABLE_NAMES.map((n) => (
            <Button
              key={n}
              size="compact-xs"
              variant="light"
              title={REPLY_VARIABLES[n]}
              onClick={() => insertVariable(n)}
              ff="monospace"
            >
              {`{{${n}}}`}
            </Button>
          ))}
        </Group>
      </Stack>
      <MultiSelect
        label={R.channels}
        placeholder={d.channels.length === 0 ? R.allChannels : undefined}
        data={CHANNEL_OPTIONS}
        value={d.channels}
        onChange={(channels) => setD({ ...d, channels })}
        clearable
        searchable
        comboboxProps={{ withinPortal: true }}
      />
      {admin && (
        <Checkbox
          label={R.shared}
          checked={d.shared}
          onChange={(e) => setD({ ...d, shared: e.currentTarget.checked })}
          data-testid="canned-shared"
        />
      )}
      <FormActions
        error={error}
        testId="canned"
        cancelLabel={R.cancel}
        saveLabel={R.save}
        saving={busy}
        onCancel={onClose}
        onSave={() => void save()}
      />
    </Stack>
  );
}

/**
 * Settings -> Canned replies: the user's own replies and the shared ones (admins edit those), searchable, with
 * a form for title, shortcut, text (variables), channels and sharing.
 */
export function CannedRepliesCard({ admin, me }: { admin: boolean; me: number }) {
  const qc = useQueryClient();
  const list = useQuery({ queryKey: replyKeys.canned(), queryFn: () => repliesApi.canned() });
  const [search, setSearch] = useState('');
  const refresh = () => qc.invalidateQueries({ queryKey: replyKeys.all });
  const q = search.trim().toLowerCase();
  const rows = (list.data ?? []).filter(
    (r) => !q || [r.title, r.shortcut, r.body].some((x) => x.toLowerCase().includes(q)),
  );
  const mayEdit = (r: CannedReply) => (r.shared ? admin : r.owner_id === me);
  const remove = async (r: CannedReply) => {
    if (await toastWrite(() => repliesApi.deleteCanned(r.id), R.deleted)) await refresh();
  };
  return (
    <ModalFormCard<Draft>
      title={R.cannedTitle}
      hint={R.cannedIntro}
      testId="canned-card"
      addLabel={R.newCanned}
      addTestId="canned-new"
      editTitle={R.editCanned}
      blank={() => blank}
      form={(draft, done) => <CannedReplyForm draft={draft} admin={admin} {...done} />}
      onSaved={() => void refresh()}
    >
      {(edit) => (
        <>
          <TextInput
            placeholder={R.search}
            aria-label={R.search}
            leftSection={<IconSearch size={16} />}
            value={search}
            onChange={(e) => setSearch(e.currentTarget.value)}
            maw={360}
          />
          {rows.length === 0 ? (
            <Text c="dimmed" size="sm">
              {list.isPending ? '…' : R.emptyCanned}
            </Text>
          ) : (
            <Table verticalSpacing="xs" highlightOnHover>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{R.shortcut}</Table.Th>
                  <Table.Th>{R.title}</Table.Th>
                  <Table.Th visibleFrom="sm">{R.channels}</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((r) => (
                  <Table.Tr key={r.id} data-testid="canned-row">
                    <Table.Td>
                      <Text ff="monospace" size="sm" fw={600}>
                        /{r.shortcut}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Group gap={6} wrap="wrap">
                        <Text size="sm">{r.title}</Text>
                        <Badge size="xs" variant={r.shared ? 'light' : 'outline'}>
                          {r.shared ? R.sharedBadge : R.personalBadge}
                        </Badge>
                      </Group>
                      <Text size="xs" c="dimmed" lineClamp={2} style={{ wordBreak: 'break-word' }}>
                        {r.body}
                      </Text>
                    </Table.Td>
                    <Table.Td visibleFrom="sm">
                      <Text size="sm">
                        {r.channels.length === 0 ? R.allChannels : r.channels.map((c) => channelName(c)).join(', ')}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      {mayEdit(r) && (
                        <EntryActions
                          name={r.title}
                          editLabel={R.edit}
                          deleteLabel={R.delete}
                          justify="flex-end"
                          onEdit={() =>
                            edit({
                              id: r.id,
                              title: r.title,
                              shortcut: r.shortcut,
                              body: r.body,
                              channels: r.channels,
                              shared: r.shared,
                            })
                          }
                          onDelete={() => void remove(r)}
                        />
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </>
      )}
    </ModalFormCard>
  );
}
