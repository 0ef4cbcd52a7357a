import {
  Alert,
  Anchor,
  Badge,
  Box,
  Button,
  Group,
  Loader,
  MultiSelect,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import {
  CALL_PAGE_SIZE,
  CALL_STRINGS,
  type CallDetail,
  callDuration,
  ENERGY_STEPS,
  emotionColor,
  RECORDING_EMOTIONS,
  type TicketListItem,
} from '@parley/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { formatDateTime, listDate } from '../../lib/dates';
import { callKeys } from '../../lib/queryKeys';
import { Pager } from '../../ui/Pagination';
import { callsApi, queryOf } from './api';

/** CALL-30: the call list's filters as the form holds them. */
interface Filters {
  direction: string;
  emotion: string[];
  energy: string;
  pace: string;
  personality: string;
  assignee: string;
  number: string;
  DID: string;
  date: string;
}
const NO_FILTERS: Filters = {
  direction: '',
  emotion: [],
  energy: '',
  pace: '',
  personality: '',
  assignee: '',
  number: '',
  DID: '',
  date: '',
};
const DIRECTIONS = [
  { value: '', label: 'Any direction' },
  { value: 'inbound', label: 'Inbound' },
  { value: 'outbound', label: 'Outbound' },
];
const STEPS = [{ value: '', label: 'Any' }, ...ENERGY_STEPS.map((s) => ({ value: String(s), label: String(s) }))];
const directionName = (d: string) => (d === 'inbound' ? 'Inbound' : d === 'outbound' ? 'Outbound' : '');

const queryText = (f: Filters) =>
  queryOf({
    direction: f.direction,
    emotion: f.emotion.join(','),
    energy: f.energy,
    pace: f.pace,
    personality: f.personality.trim(),
    assignee: f.assignee.trim(),
    number: f.number.trim(),
    DID: f.DID.trim(),
    date: f.date,
  });

/**
 * CALL-29, CALL-30: `/call` lists the account's calls (CALL tickets, 30 a page, newest activity first) with
 * the call filters; `/call/:id` opens a call's detail pane beside the list (under it on a phone).
 */
export function CallsScreen() {
  const params = useParams();
  const openId = Number((params['*'] ?? '').split('/')[0]) || null;
  const navigate = useNavigate();
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [applied, setApplied] = useState('');
  const [page, setPage] = useState(1);
  const list = useQuery({
    queryKey: callKeys.list(applied, page),
    queryFn: () => callsApi.list(applied, (page - 1) * CALL_PAGE_SIZE),
    placeholderData: keepPreviousData,
  });
  const set = <K extends keyof Filters>(k: K, v: Filters[K]) => setDraft((d) => ({ ...d, [k]: v }));
  const apply = (f: Filters) => {
    setApplied(queryText(f));
    setPage(1);
  };
  const total = Math.ceil((list.data?.count ?? 0) / CALL_PAGE_SIZE);

  return (
    <Stack gap="md">
      <Title order={1} size="h2">
        Calls
      </Title>
      <Paper withBorder radius="md" p="sm">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            apply(draft);
          }}
        >
          <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }} spacing="xs" verticalSpacing="xs">
            <Select
              label="Direction"
              data={DIRECTIONS}
              value={draft.direction}
              onChange={(v) => set('direction', v ?? '')}
              allowDeselect={false}
            />
            <MultiSelect
              label="Emotion"
              data={[...RECORDING_EMOTIONS]}
              value={draft.emotion}
              onChange={(v) => set('emotion', v)}
              placeholder={draft.emotion.length ? undefined : 'Any'}
            />
            <Select
              label="Energy"
              data={STEPS}
              value={draft.energy}
              onChange={(v) => set('energy', v ?? '')}
              allowDeselect={false}
            />
            <Select
              label="Pace"
              data={STEPS}
              value={draft.pace}
              onChange={(v) => set('pace', v ?? '')}
              allowDeselect={false}
            />
            <TextInput
              label="Personality"
              value={draft.personality}
              onChange={(e) => set('personality', e.currentTarget.value)}
            />
            <TextInput
              label="Assignee"
              placeholder="Username"
              value={draft.assignee}
              onChange={(e) => set('assignee', e.currentTarget.value)}
            />
            <TextInput label="Number" value={draft.number} onChange={(e) => set('number', e.currentTarget.value)} />
            <TextInput label="DID" value={draft.DID} onChange={(e) => set('DID', e.currentTarget.value)} />
            <TextInput
              label="Date"
              type="date"
              value={draft.date}
              onChange={(e) => set('date', e.currentTarget.value)}
            />
            <Group gap="xs" align="flex-end">
              <Button type="submit" loading={list.isFetching} data-testid="calls-filter">
                Filter
              </Button>
              <Button
                variant="default"
                onClick={() => {
                  setDraft(NO_FILTERS);
                  apply(NO_FILTERS);
                }}
              >
                Clear
              </Button>
            </Group>
          </SimpleGrid>
        </form>
      </Paper>
      {list.isError && <Alert color="red">{(list.error as Error).message}</Alert>}
      <Box
        style={{ display: 'grid', gap: 'var(--mantine-spacing-md)', alignItems: 'start' }}
        className="calls-layout"
        data-open={openId ? 'true' : undefined}
      >
        <Paper withBorder radius="md" style={{ overflowX: 'auto' }}>
          {list.isLoading ? (
            <Group justify="center" p="lg">
              <Loader aria-label="Loading" />
            </Group>
          ) : (list.data?.data.length ?? 0) === 0 ? (
            <Text c="dimmed" p="md" data-testid="calls-empty">
              {applied
                ? 'No calls match these filters.'
                : 'No calls yet. Calls made and taken with the softphone show here.'}
            </Text>
          ) : (
            <Table highlightOnHover verticalSpacing="xs" data-testid="calls-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>When</Table.Th>
                  <Table.Th>Direction</Table.Th>
                  <Table.Th>Number</Table.Th>
                  <Table.Th visibleFrom="sm">DID</Table.Th>
                  <Table.Th visibleFrom="sm">Assignee</Table.Th>
                  <Table.Th>Emotion</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.data?.data.map((t) => (
                  <CallRow key={t.id} t={t} open={t.id === openId} onOpen={() => navigate(`/call/${t.id}`)} />
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Paper>
        {openId && <CallDetailPane id={openId} onClose={() => navigate('/call')} />}
      </Box>
      <Group justify="space-between">
        <Text size="sm" c="dimmed" data-testid="calls-count">
          {list.data ? `${list.data.count} ${list.data.count === 1 ? 'call' : 'calls'}` : ''}
        </Text>
        <Pager page={page} total={total} onChange={setPage} />
      </Group>
      <style>{`.calls-layout { grid-template-columns: 1fr; }
.calls-layout > section { order: -1; }
@media (min-width: 75em) {
  .calls-layout[data-open] { grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); }
  .calls-layout > section { order: 0; }
}`}</style>
    </Stack>
  );
}

function CallRow({ t, open, onOpen }: { t: TicketListItem; open: boolean; onOpen(): void }) {
  return (
    <Table.Tr
      onClick={onOpen}
      style={{ cursor: 'pointer' }}
      bg={open ? 'var(--mantine-primary-color-light)' : undefined}
      aria-selected={open}
      data-testid="call-row"
    >
      <Table.Td>
        <Anchor component={Link} to={`/call/${t.id}`} onClick={(e) => e.stopPropagation()} size="sm">
          {listDate(t.created_at)}
        </Anchor>
      </Table.Td>
      <Table.Td>{directionName(t.call_direction)}</Table.Td>
      <Table.Td>{t.phone || t.name}</Table.Td>
      <Table.Td visibleFrom="sm">{t.did}</Table.Td>
      <Table.Td visibleFrom="sm">{t.assignee.split(',').filter(Boolean).join(', ')}</Table.Td>
      <Table.Td>
        {t.emotion ? (
          <Badge color={emotionColor(t.emotion)} variant="light">
            {t.emotion}
          </Badge>
        ) : null}
      </Table.Td>
    </Table.Tr>
  );
}

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm">{children || '-'}</Text>
    </div>
  );
}

/** CALL-35, CALL-36: the DID's description; the spec's alert when the look-up fails. */
function DidLine({ did }: { did: string }) {
  const q = useQuery({ queryKey: callKeys.did(did), queryFn: () => callsApi.did(did), retry: false, enabled: !!did });
  if (!did) return <Fact label="DID">{''}</Fact>;
  return (
    <div>
      <Fact label="DID">
        {did}
        {q.data ? ` (${q.data.description})` : ''}
      </Fact>
      {q.isError && (
        <Alert color="yellow" py={4} mt={4} data-testid="imc-failed">
          {CALL_STRINGS.imcFailed}
        </Alert>
      )}
    </div>
  );
}

/** CALL-29, CALL-32: the call's facts, its recording and its transcript. */
export function CallDetailPane({ id, onClose }: { id: number; onClose(): void }) {
  const q = useQuery({ queryKey: callKeys.detail(id), queryFn: () => callsApi.detail(id) });
  return (
    <Paper withBorder radius="md" p="md" data-testid="call-detail" aria-label="Call details" component="section">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">
          {q.data ? `Call #${q.data.call.ticket_number}` : 'Call'}
        </Title>
        <Button variant="subtle" size="compact-sm" onClick={onClose}>
          Close
        </Button>
      </Group>
      {q.isLoading && <Loader aria-label="Loading" />}
      {q.isError && <Alert color="red">{(q.error as Error).message}</Alert>}
      {q.data && <CallDetailBody d={q.data} />}
    </Paper>
  );
}

function CallDetailBody({ d }: { d: CallDetail }) {
  const c = d.call;
  return (
    <Stack gap="sm">
      <SimpleGrid cols={{ base: 2, sm: 3 }} spacing="sm">
        <Fact label="Direction">{directionName(c.direction)}</Fact>
        <Fact label="Number">{c.number}</Fact>
        <Fact label="Name">{c.name}</Fact>
        <DidLine did={c.did} />
        <Fact label="Assignee">{c.assignee.split(',').filter(Boolean).join(', ')}</Fact>
        <Fact label="Started">{formatDateTime(c.started_at)}</Fact>
        <Fact label="Duration">{c.ended_at === null ? 'In progress' : callDuration(c.duration)}</Fact>
        <Fact label="Emotion">{c.emotion}</Fact>
        <Fact label="Energy">{c.energy === null ? '' : String(c.energy)}</Fact>
        <Fact label="Pace">{c.pace === null ? '' : String(c.pace)}</Fact>
        <Fact label="Personality">{c.personality}</Fact>
        <Fact label="Ticket">
          <Anchor component={Link} to={`/ticket/${c.ticket_id}`} size="sm">
            Open ticket #{c.ticket_number}
          </Anchor>
        </Fact>
      </SimpleGrid>
      <Title order={3} size="h5">
        Recording
      </Title>
      {c.recording ? (
        // biome-ignore lint/a11y/useMediaCaption: a call recording has no captions; its transcript is below
        <audio controls preload="none" src={c.recording} style={{ width: '100%' }} data-testid="call-recording" />
      ) : (
        <Text size="sm" c="dimmed">
          {c.has_recording
            ? 'This call was recorded; supervisors and admins can play it.'
            : 'This call has no recording.'}
        </Text>
      )}
      <Title order={3} size="h5">
        Transcript
      </Title>
      {d.transcript.length === 0 ? (
        <Text size="sm" c="dimmed">
          No transcript for this call.
        </Text>
      ) : (
        <Stack gap={6} data-testid="call-transcript">
          {d.transcript.map((t) => (
            <Paper key={t.id} withBorder radius="sm" p="xs" data-testid="transcript-entry">
              <Group gap={6} mb={2}>
                <Badge
                  size="sm"
                  variant="light"
                  color={t.source === 'agent' ? 'blue' : t.source === 'customer' ? 'teal' : 'gray'}
                >
                  {t.source}
                </Badge>
                {t.emotion && (
                  <Badge size="sm" variant="outline" color={emotionColor(t.emotion)}>
                    {t.emotion}
                  </Badge>
                )}
                {t.interim && (
                  <Text size="xs" c="dimmed">
                    interim
                  </Text>
                )}
              </Group>
              <Text size="sm">{t.transcription}</Text>
              {t.translated_transcription && (
                <Text size="sm" c="dimmed">
                  {t.translated_transcription}
                </Text>
              )}
            </Paper>
          ))}
        </Stack>
      )}
    </Stack>
  );
}
