import {
  ActionIcon,
  Alert,
  Anchor,
  Badge,
  Button,
  Combobox,
  Group,
  Loader,
  Modal,
  Paper,
  Select,
  Stack,
  Text,
  TextInput,
  Title,
  Tooltip,
  useCombobox,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import {
  type ContactDetail,
  type ContactRow,
  channelName,
  IDENTIFIER_KINDS,
  IDENTIFIER_LABELS,
  type IdentifierKind,
  REFUSES_TO_PROVIDE,
  TICKET_STATUS_NAMES,
} from '@parley/contracts';
import { IconArrowLeft, IconPencil, IconShieldCheck, IconTrash } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { conversationPath } from '../../lib/conversationPath';
import { formatDateTime, listDate } from '../../lib/dates';
import { errorText } from '../../lib/http';
import { contactKeys } from '../../lib/queryKeys';
import { useSession } from '../../lib/session';
import { useWrite } from '../../lib/useWrite';
import { toast } from '../../ui/toast';
import { contactsApi } from './api';
import { ContactFormModal } from './ContactFormModal';
import { ContactPrivacy } from './ContactPrivacy';
import { T } from './strings';

/** `/contacts/:id`: who the contact is, their addresses, every conversation on every channel, merges. */
export function ContactPage() {
  const id = Number(useParams().id);
  const qc = useQueryClient();
  const q = useQuery({
    queryKey: contactKeys.one(id),
    queryFn: () => contactsApi.one(id),
    enabled: Number.isInteger(id) && id > 0,
    retry: false,
  });
  const [editing, setEditing] = useState(false);
  const refresh = () => qc.invalidateQueries({ queryKey: contactKeys.all });
  const c = q.data;
  const { state } = useSession();
  const admin = state.phase === 'signedIn' && state.session.type === 'admin';
  const navigate = useNavigate();

  return (
    <Stack gap="md" data-testid="contact-page">
      <Anchor component={Link} to="/contacts" size="sm">
        <Group gap={4}>
          <IconArrowLeft size={14} />
          {T.back}
        </Group>
      </Anchor>
      {q.isPending && <Loader size="sm" aria-label="Loading" />}
      {q.isError && <Text c="red">{errorText(q.error)}</Text>}
      {c && (
        <>
          <Group justify="space-between" align="flex-start" wrap="nowrap">
            <Stack gap={2} style={{ minWidth: 0 }}>
              <Title order={1} size="h2" style={{ overflowWrap: 'anywhere' }} data-testid="contact-name">
                {c.salutation ? `${c.salutation} ${c.name}` : c.name}
              </Title>
              <Text c="dimmed" size="sm">
                {identityLine(c)}
              </Text>
            </Stack>
            {c.merged_into === null && (
              <Button variant="default" leftSection={<IconPencil size={16} />} onClick={() => setEditing(true)}>
                {T.edit}
              </Button>
            )}
          </Group>
          {admin && c.merged_into === null && (
            <ContactPrivacy
              contact={{ id, name: c.name }}
              onErased={() => {
                void refresh();
                navigate('/contacts');
              }}
            />
          )}
          {c.merged_into !== null && (
            <Alert color="yellow" data-testid="contact-merged-away">
              {T.mergedAway}{' '}
              <Anchor component={Link} to={`/contacts/${c.merged_into}`}>
                {T.openKept}
              </Anchor>
            </Alert>
          )}
          {c.notes && (
            <Paper withBorder radius="md" p="md">
              <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                {c.notes}
              </Text>
            </Paper>
          )}
          <Addresses c={c} onChanged={refresh} />
          <Conversations c={c} />
          {c.merged_into === null && <Merging c={c} onChanged={refresh} />}
          <ContactFormModal
            opened={editing}
            contact={c}
            onClose={() => setEditing(false)}
            onSaved={() => {
              setEditing(false);
              toast({ message: 'Contact saved.' });
            }}
          />
        </>
      )}
    </Stack>
  );
}

function identityLine(c: ContactDetail): string {
  if (c.id_type === 'None') return '';
  return c.id_number === REFUSES_TO_PROVIDE ? `${c.id_type}: ${REFUSES_TO_PROVIDE}` : `${c.id_type} ${c.id_number}`;
}

function Addresses({ c, onChanged }: { c: ContactDetail; onChanged(): void }) {
  const [kind, setKind] = useState<IdentifierKind>('email');
  const [value, setValue] = useState('');
  const { run, error } = useWrite();
  const live = c.merged_into === null;
  const add = async () => {
    if (!(await run(() => contactsApi.addIdentifier(c.id, { kind, value })))) return;
    setValue('');
    onChanged();
  };
  const removal = useMutation({
    mutationFn: (identifierId: number) => contactsApi.removeIdentifier(c.id, identifierId),
    onSuccess: () => onChanged(),
    onError: (e) => toast({ message: errorText(e), color: 'red' }),
  });
  const remove = (identifierId: number) => removal.mutate(identifierId);
  return (
    <Paper withBorder radius="md" p="md">
      <Stack gap="sm">
        <Title order={2} size="h4">
          {T.addresses}
        </Title>
        {c.identifiers.map((i) => (
          <Group key={i.id} justify="space-between" wrap="nowrap" data-testid="contact-address">
            <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
              <Badge variant="default" size="sm" miw={84}>
                {IDENTIFIER_LABELS[i.kind]}
              </Badge>
              <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                {i.value}
              </Text>
              <Tooltip label={i.verified ? T.verifiedHint : T.givenHint}>
                {i.verified ? (
                  <Badge color="green" variant="light" size="sm" leftSection={<IconShieldCheck size={12} />}>
                    {T.verified}
                  </Badge>
                ) : (
                  <Badge color="gray" variant="light" size="sm">
                    {T.given}
                  </Badge>
                )}
              </Tooltip>
            </Group>
            {live && (
              <ActionIcon variant="subtle" color="gray" aria-label={T.remove(i.value)} onClick={() => remove(i.id)}>
                <IconTrash size={16} />
              </ActionIcon>
            )}
          </Group>
        ))}
        {live && (
          <Group gap="xs" align="flex-start" wrap="wrap">
            <Select
              aria-label={T.addressKind}
              data={IDENTIFIER_KINDS.map((k) => ({ value: k, label: IDENTIFIER_LABELS[k] }))}
              value={kind}
              onChange={(v) => setKind((v as IdentifierKind) ?? 'email')}
              allowDeselect={false}
              w={150}
            />
            <TextInput
              aria-label={T.addressValue}
              placeholder={
                kind === 'email' ? 'name@example.com' : kind === 'phone' || kind === 'whatsapp' ? '+60 12 345 6789' : ''
              }
              value={value}
              onChange={(e) => setValue(e.currentTarget.value)}
              onKeyDown={(e) => e.key === 'Enter' && void add()}
              error={error}
              style={{ flex: 1, minWidth: 200 }}
              data-testid="contact-address-input"
            />
            <Button
              variant="light"
              onClick={() => void add()}
              disabled={!value.trim()}
              data-testid="contact-address-add"
            >
              {T.addAddress}
            </Button>
          </Group>
        )}
      </Stack>
    </Paper>
  );
}

function Conversations({ c }: { c: ContactDetail }) {
  return (
    <Paper withBorder radius="md" p="md">
      <Stack gap="xs">
        <Title order={2} size="h4">
          {T.conversations}
        </Title>
        {c.conversations_list.length === 0 && (
          <Text c="dimmed" size="sm">
            {T.noConversations}
          </Text>
        )}
        {c.conversations_list.map((t) => (
          <Group
            key={t.id}
            justify="space-between"
            wrap="nowrap"
            gap="sm"
            data-testid="contact-conversation"
            data-channel={t.channel}
          >
            <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
              <Badge variant="light" size="sm" style={{ flexShrink: 0 }}>
                {channelName(t.channel)}
              </Badge>
              <Anchor component={Link} to={conversationPath(t.channel, t.id)} size="sm" lineClamp={1}>
                #{t.ticket_number} {t.title}
              </Anchor>
            </Group>
            <Group gap="xs" wrap="nowrap" style={{ flexShrink: 0 }}>
              <Text size="xs" c="dimmed" visibleFrom="xs">
                {TICKET_STATUS_NAMES[t.closed] ?? ''}
              </Text>
              <Text size="xs" c="dimmed" title={formatDateTime(t.updated_at)}>
                {listDate(t.updated_at)}
              </Text>
            </Group>
          </Group>
        ))}
      </Stack>
    </Paper>
  );
}

function Merging({ c, onChanged }: { c: ContactDetail; onChanged(): void }) {
  const [text, setText] = useState('');
  const [debounced] = useDebouncedValue(text.trim(), 250);
  const [picked, setPicked] = useState<ContactRow | null>(null);
  const merging = useMutation({
    mutationFn: (other: number) => contactsApi.merge(c.id, other),
    onSuccess: () => {
      toast({ message: 'Contacts merged.' });
      setPicked(null);
      setText('');
      onChanged();
    },
    onError: (e) => toast({ message: errorText(e), color: 'red' }),
  });
  const busy = merging.isPending;
  const combobox = useCombobox();
  const found = useQuery({
    queryKey: contactKeys.list({ keyword: debounced, filter: 'all', pagination: 10, page: 1 }),
    queryFn: () => contactsApi.list({ keyword: debounced, filter: 'all', pagination: 10, page: 1 }),
    enabled: debounced.length > 0,
  });
  const options = (found.data?.contacts ?? []).filter((o) => o.id !== c.id);

  const merge = () => {
    if (picked) merging.mutate(picked.id);
  };
  const undoing = useMutation({
    mutationFn: (mergeId: number) => contactsApi.undoMerge(mergeId),
    onSuccess: () => {
      toast({ message: 'Merge undone: both contacts are back as they were.' });
      onChanged();
    },
    onError: (e) => toast({ message: errorText(e), color: 'red' }),
  });
  const undo = (mergeId: number) => undoing.mutate(mergeId);

  return (
    <Paper withBorder radius="md" p="md">
      <Stack gap="sm">
        <Title order={2} size="h4">
          {T.mergeTitle}
        </Title>
        <Text size="sm" c="dimmed">
          {T.mergeHint}
        </Text>
        <Combobox
          store={combobox}
          onOptionSubmit={(v) => {
            setPicked(options.find((o) => String(o.id) === v) ?? null);
            combobox.closeDropdown();
          }}
        >
          <Combobox.Target>
            <TextInput
              aria-label={T.mergeSearch}
              placeholder={T.mergeSearch}
              value={text}
              onChange={(e) => {
                setText(e.currentTarget.value);
                combobox.openDropdown();
              }}
              onFocus={() => combobox.openDropdown()}
              onBlur={() => combobox.closeDropdown()}
              maw={420}
              data-testid="contact-merge-search"
            />
          </Combobox.Target>
          <Combobox.Dropdown hidden={options.length === 0}>
            <Combobox.Options>
              {options.map((o) => (
                <Combobox.Option key={o.id} value={String(o.id)} data-testid="contact-merge-option">
                  <Text size="sm">{o.name}</Text>
                  <Text size="xs" c="dimmed">
                    {o.identifiers.length > 0 ? o.uid : ''} · {o.conversations} {T.conversations.toLowerCase()}
                  </Text>
                </Combobox.Option>
              ))}
            </Combobox.Options>
          </Combobox.Dropdown>
        </Combobox>
        {c.merges.length > 0 && (
          <Stack gap={6}>
            <Text size="sm" fw={500}>
              {T.merges}
            </Text>
            {c.merges.map((m) => (
              <Group key={m.id} justify="space-between" wrap="nowrap" data-testid="contact-merge">
                <Text size="sm">
                  {T.mergedLine(m.merged_name, m.by, m.identifiers, m.conversations)}
                  <Text span size="xs" c="dimmed">
                    {' '}
                    · {listDate(m.created_at)}
                  </Text>
                </Text>
                <Button size="compact-sm" variant="light" onClick={() => undo(m.id)} data-testid="contact-merge-undo">
                  {T.undo}
                </Button>
              </Group>
            ))}
          </Stack>
        )}
      </Stack>
      <Modal opened={picked !== null} onClose={() => setPicked(null)} title={T.mergeTitle} centered>
        <Stack gap="md">
          <Text>{picked && T.mergeConfirm(picked.name, c.name)}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setPicked(null)}>
              {T.cancel}
            </Button>
            <Button onClick={merge} loading={busy} data-testid="contact-merge-confirm">
              {T.merge}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Paper>
  );
}
