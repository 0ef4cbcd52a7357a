import {
  ActionIcon,
  Anchor,
  Badge,
  Button,
  Group,
  Loader,
  Modal,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  Switch,
  Table,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import {
  CASE_STAGE_NAMES,
  CASE_STAGES,
  CASE_STRINGS,
  type CaseDetail,
  type CaseStage,
  channelName,
  TICKET_STATUS_NAMES,
} from '@parley/contracts';
import { IconArrowLeft, IconPlus, IconX } from '@tabler/icons-react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, Route, Routes, useNavigate, useParams } from 'react-router';
import { conversationPath } from '../../lib/conversationPath';
import { formatDateTime, formatDay, isoDay, listDate } from '../../lib/dates';
import { errorText } from '../../lib/http';
import { caseKeys } from '../../lib/queryKeys';
import { useSession } from '../../lib/session';
import { useWrite } from '../../lib/useWrite';
import { EmptyScreen } from '../../ui/EmptyScreen';
import { toast } from '../../ui/toast';
import { casesApi } from './api';

const STAGE_COLOR: Record<CaseStage, string> = {
  new: 'blue',
  investigating: 'violet',
  waiting: 'yellow',
  resolved: 'green',
  closed: 'gray',
};

/** `/case` (the list) and `/case/:id` (a case's page); hidden for non-admins with hide_case. */
export function CasesScreen() {
  const { state } = useSession();
  const me = state.phase === 'signedIn' ? state.session : null;
  if (me && me.type !== 'admin' && me.permission?.includes('hide_case'))
    return <EmptyScreen title={CASE_STRINGS.title} text={CASE_STRINGS.hidden} />;
  return (
    <Routes>
      <Route index element={<CaseList />} />
      <Route path=":id" element={<CasePage />} />
    </Routes>
  );
}

function CaseList() {
  const navigate = useNavigate();
  const [stage, setStage] = useState('open');
  const [mine, setMine] = useState(false);
  const [text, setText] = useState('');
  const [q] = useDebouncedValue(text.trim(), 300);
  const [creating, setCreating] = useState(false);
  const list = useQuery({
    queryKey: caseKeys.list(stage, mine, q),
    queryFn: () => casesApi.list(stage, mine, q),
    placeholderData: keepPreviousData,
    retry: false,
  });
  const filtered = stage !== 'open' || mine || q !== '';
  return (
    <Stack gap="md" data-testid="cases">
      <Group justify="space-between">
        <Title order={1} size="h2">
          {CASE_STRINGS.title}
        </Title>
        <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)} data-testid="case-new">
          New case
        </Button>
      </Group>
      <Group gap="sm" wrap="wrap" align="center">
        <SegmentedControl
          value={stage === 'open' || stage === 'all' ? stage : 'all'}
          onChange={setStage}
          data={[
            { value: 'open', label: 'Open' },
            { value: 'all', label: 'All' },
          ]}
        />
        <Switch label="Mine" checked={mine} onChange={(e) => setMine(e.currentTarget.checked)} />
        <TextInput
          aria-label="Search cases"
          placeholder="Search cases"
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          w={{ base: '100%', xs: 260 }}
        />
      </Group>
      {list.isPending && <Loader size="sm" aria-label="Loading" />}
      {list.isError && <Text c="red">{errorText(list.error)}</Text>}
      {list.data && list.data.length === 0 && (
        <Text c="dimmed">{filtered ? CASE_STRINGS.noMatch : CASE_STRINGS.none}</Text>
      )}
      {list.data && list.data.length > 0 && (
        <Paper withBorder radius="md">
          <Table.ScrollContainer minWidth={720}>
            <Table verticalSpacing={8} highlightOnHover data-testid="cases-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Case</Table.Th>
                  <Table.Th>Stage</Table.Th>
                  <Table.Th>Owner</Table.Th>
                  <Table.Th>Customer</Table.Th>
                  <Table.Th>Tickets</Table.Th>
                  <Table.Th>Due</Table.Th>
                  <Table.Th>Updated</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.data.map((k) => (
                  <Table.Tr key={k.id} data-testid="case-row">
                    <Table.Td>
                      <Anchor component={Link} to={`/case/${k.id}`} fw={500}>
                        {k.title}
                      </Anchor>
                      {k.case_type && (
                        <Text size="xs" c="dimmed">
                          {k.case_type}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Badge color={STAGE_COLOR[k.stage]} variant="light" tt="none">
                        {CASE_STAGE_NAMES[k.stage]}
                      </Badge>
                    </Table.Td>
                    <Table.Td>{k.owner}</Table.Td>
                    <Table.Td>{k.contact_name}</Table.Td>
                    <Table.Td>{k.tickets}</Table.Td>
                    <Table.Td style={{ whiteSpace: 'nowrap' }}>
                      <Text size="sm" c={k.due_at !== null && k.due_at < Date.now() ? 'red' : undefined}>
                        {k.due_at === null ? '' : formatDay(k.due_at)}
                      </Text>
                    </Table.Td>
                    <Table.Td style={{ whiteSpace: 'nowrap' }}>{listDate(k.updated_at)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Paper>
      )}
      <NewCaseModal opened={creating} onClose={() => setCreating(false)} onMade={(id) => navigate(`/case/${id}`)} />
    </Stack>
  );
}

function NewCaseModal({ opened, onClose, onMade }: { opened: boolean; onClose(): void; onMade(id: number): void }) {
  const [title, setTitle] = useState('');
  const [caseType, setCaseType] = useState('');
  const { run, error } = useWrite({ invalidate: caseKeys.all });
  const make = async () => {
    let id = 0;
    const made = await run(async () => {
      id = (await casesApi.create({ title, case_type: caseType })).id;
    });
    if (!made) return;
    setTitle('');
    setCaseType('');
    onMade(id);
  };
  return (
    <Modal opened={opened} onClose={onClose} title="New case" centered>
      <Stack gap="sm">
        <TextInput label="Title" value={title} onChange={(e) => setTitle(e.currentTarget.value)} data-autofocus />
        <TextInput
          label="Type"
          placeholder="Claim, complaint, return…"
          value={caseType}
          onChange={(e) => setCaseType(e.currentTarget.value)}
        />
        {error && (
          <Text c="red" size="sm" role="alert">
            {error}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={() => void make()} data-testid="case-create">
            Create
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function CasePage() {
  const id = Number(useParams().id);
  const qc = useQueryClient();
  const q = useQuery({ queryKey: caseKeys.one(id), queryFn: () => casesApi.one(id), retry: false });
  const team = useQuery({ queryKey: caseKeys.team, queryFn: casesApi.team, staleTime: 60_000 });
  const [ticketNumber, setTicketNumber] = useState('');
  const [note, setNote] = useState('');
  const k = q.data;
  const refresh = () => qc.invalidateQueries({ queryKey: caseKeys.all });
  const action = useMutation({
    mutationFn: (f: () => Promise<unknown>) => f(),
    onSuccess: () => refresh(),
    onError: (e) => toast({ message: errorText(e), color: 'red' }),
  });
  const act = (f: () => Promise<unknown>) =>
    action.mutateAsync(f).then(
      () => true,
      () => false,
    );
  const change = (patch: Partial<CaseDetail>) =>
    k &&
    act(() =>
      casesApi.update(k.id, {
        title: k.title,
        case_type: k.case_type,
        stage: k.stage,
        owner_id: k.owner_id,
        contact_id: k.contact_id,
        due_at: k.due_at,
        ...patch,
      }),
    );

  return (
    <Stack gap="md" data-testid="case-page">
      <Anchor component={Link} to="/case" size="sm">
        <Group gap={4}>
          <IconArrowLeft size={14} />
          All cases
        </Group>
      </Anchor>
      {q.isPending && <Loader size="sm" aria-label="Loading" />}
      {q.isError && <Text c="red">{errorText(q.error)}</Text>}
      {k && (
        <>
          <Stack gap={2}>
            <Title order={1} size="h2" style={{ overflowWrap: 'anywhere' }}>
              {k.title}
            </Title>
            <Text c="dimmed" size="sm">
              {[k.case_type, k.contact_name].filter(Boolean).join(' · ')}
              {k.contact_id !== null && (
                <>
                  {' '}
                  <Anchor component={Link} to={`/contacts/${k.contact_id}`} size="sm">
                    Contact page
                  </Anchor>
                </>
              )}
            </Text>
          </Stack>
          <Paper withBorder radius="md" p="md">
            <Group gap="sm" align="flex-end" wrap="wrap">
              <Select
                label="Stage"
                data={CASE_STAGES.map((s) => ({ value: s, label: CASE_STAGE_NAMES[s] }))}
                value={k.stage}
                onChange={(v) => v && void change({ stage: v as CaseStage })}
                allowDeselect={false}
                w={200}
                data-testid="case-stage"
              />
              <Select
                label="Owner"
                data={(team.data ?? []).map((u) => ({ value: String(u.userId), label: u.name || u.username }))}
                value={k.owner_id === null ? null : String(k.owner_id)}
                onChange={(v) => void change({ owner_id: v ? Number(v) : null })}
                clearable
                placeholder="Nobody"
                w={200}
              />
              <TextInput
                label="Due"
                type="date"
                value={k.due_at === null ? '' : isoDay(k.due_at)}
                onChange={(e) => {
                  const v = e.currentTarget.value;
                  void change({ due_at: v ? new Date(`${v}T00:00`).getTime() : null });
                }}
                w={170}
              />
            </Group>
          </Paper>
          <Paper withBorder radius="md" p="md">
            <Stack gap="xs">
              <Title order={2} size="h4">
                Tickets
              </Title>
              {k.ticket_list.map((t) => (
                <Group key={t.id} justify="space-between" wrap="nowrap" data-testid="case-ticket">
                  <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
                    <Badge variant="light" size="sm" style={{ flexShrink: 0 }}>
                      {channelName(t.channel)}
                    </Badge>
                    <Anchor component={Link} to={conversationPath(t.channel, t.id)} size="sm" lineClamp={1}>
                      #{t.ticket_number} {t.title}
                    </Anchor>
                    <Text size="xs" c="dimmed">
                      {TICKET_STATUS_NAMES[t.closed] ?? ''}
                    </Text>
                  </Group>
                  <ActionIcon
                    variant="subtle"
                    color="gray"
                    aria-label={`Remove ticket #${t.ticket_number} from the case`}
                    onClick={() => void act(() => casesApi.removeTicket(k.id, t.id))}
                  >
                    <IconX size={16} />
                  </ActionIcon>
                </Group>
              ))}
              <Group gap="xs">
                <TextInput
                  aria-label="Ticket number"
                  placeholder="Ticket number"
                  value={ticketNumber}
                  onChange={(e) => setTicketNumber(e.currentTarget.value.replace(/\D/g, ''))}
                  w={160}
                  data-testid="case-ticket-number"
                />
                <Button
                  variant="light"
                  disabled={!ticketNumber}
                  onClick={() =>
                    void act(() => casesApi.addTicket(k.id, Number(ticketNumber))).then(
                      (ok) => ok && setTicketNumber(''),
                    )
                  }
                  data-testid="case-ticket-add"
                >
                  Add ticket
                </Button>
              </Group>
            </Stack>
          </Paper>
          <Paper withBorder radius="md" p="md">
            <Stack gap="xs">
              <Title order={2} size="h4">
                Timeline
              </Title>
              <Textarea
                placeholder="Add a note"
                autosize
                minRows={2}
                value={note}
                onChange={(e) => setNote(e.currentTarget.value)}
                aria-label="Note"
              />
              <Group>
                <Button
                  variant="light"
                  disabled={!note.trim()}
                  onClick={() => void act(() => casesApi.note(k.id, note)).then((ok) => ok && setNote(''))}
                  data-testid="case-note-add"
                >
                  Add note
                </Button>
              </Group>
              {k.timeline.map((e) => (
                <Group key={e.id} gap="xs" wrap="nowrap" align="flex-start" data-testid="case-event">
                  <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }} w={130}>
                    {formatDateTime(e.at)}
                  </Text>
                  <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                    {e.text}
                    {e.by && (
                      <Text span size="xs" c="dimmed">
                        {' '}
                        · {e.by}
                      </Text>
                    )}
                  </Text>
                </Group>
              ))}
            </Stack>
          </Paper>
        </>
      )}
    </Stack>
  );
}
