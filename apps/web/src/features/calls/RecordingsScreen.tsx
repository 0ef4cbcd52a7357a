import {
  Alert,
  Badge,
  Box,
  Button,
  Chip,
  Group,
  Loader,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { CALL_STRINGS, callDuration, emotionColor, RECORDING_EMOTIONS, RECORDING_PAGE_SIZE } from '@parley/contracts';
import { useInfiniteQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { useDepartments } from '../../lib/api/departments';
import { formatDateTime } from '../../lib/dates';
import { callKeys } from '../../lib/queryKeys';
import { useSession } from '../../lib/session';
import { callsApi, queryOf } from './api';

interface Filters {
  type: string;
  emotions: string[];
  from: string;
  to: string;
  department: string;
}
const NO_FILTERS: Filters = { type: 'all', emotions: [], from: '', to: '', department: '' };

/** Local midnight of a YYYY-MM-DD day in unix seconds; the end of the day with `end`. */
const dayToSeconds = (day: string, end = false) => {
  if (!day) return '';
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const t = new Date(y, m - 1, d + (end ? 1 : 0)).getTime() / 1000 - (end ? 1 : 0);
  return String(Math.floor(t));
};
const queryText = (f: Filters) =>
  queryOf({
    type: f.type === 'all' ? '' : f.type,
    emotionFilter: f.emotions.join(','),
    start: dayToSeconds(f.from),
    end: dayToSeconds(f.to, true),
    depFilter: f.department,
  });

/**
 * REC-01 .. REC-06, REC-12: `/recording`, the account's recorded calls for supervisors and admins: a filter
 * side panel (Emotion toggles, direction, dates, department; Filter shows "Loading" while busy) and the
 * list, 30 at a time, with "Show More..." while the last page came back full.
 */
export function RecordingsScreen() {
  const { state } = useSession();
  const type = state.phase === 'signedIn' ? state.session.type : undefined;
  if (type !== 'admin' && type !== 'supervisor')
    return (
      <Stack gap="md">
        <Title order={1} size="h2">
          Recordings
        </Title>
        <Alert color="gray">{CALL_STRINGS.recordingsNotAllowed}</Alert>
      </Stack>
    );
  return <Recordings />;
}

function Recordings() {
  const departments = useDepartments();
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [applied, setApplied] = useState('');
  const q = useInfiniteQuery({
    queryKey: callKeys.recordings(applied),
    queryFn: ({ pageParam }) => callsApi.recordings(applied, pageParam),
    initialPageParam: 0,
    getNextPageParam: (last, pages) =>
      last.data.length >= RECORDING_PAGE_SIZE ? pages.reduce((n, p) => n + p.data.length, 0) : undefined,
  });
  const set = <K extends keyof Filters>(k: K, v: Filters[K]) => setDraft((d) => ({ ...d, [k]: v }));
  const busy = q.isFetching && !q.isFetchingNextPage;
  const rows = q.data?.pages.flatMap((p) => p.data) ?? [];

  return (
    <Stack gap="md">
      <Title order={1} size="h2">
        Recordings
      </Title>
      <Box className="rec-layout" style={{ display: 'grid', gap: 'var(--mantine-spacing-md)', alignItems: 'start' }}>
        <Paper withBorder radius="md" p="md" component="aside" aria-label="Filter recordings" data-testid="rec-filters">
          <form
            onSubmit={(e) => {
              e.preventDefault();
              setApplied(queryText(draft));
            }}
          >
            <Stack gap="sm">
              <Text fw={600} size="sm">
                Emotion
              </Text>
              <Chip.Group multiple value={draft.emotions} onChange={(v) => set('emotions', v)}>
                <Group gap={6}>
                  {RECORDING_EMOTIONS.map((e) => (
                    <Chip key={e} value={e} size="xs" color={emotionColor(e)}>
                      {e}
                    </Chip>
                  ))}
                </Group>
              </Chip.Group>
              <SegmentedControl
                size="xs"
                value={draft.type}
                onChange={(v) => set('type', v)}
                data={[
                  { value: 'all', label: 'All' },
                  { value: 'inbound', label: 'Inbound' },
                  { value: 'outbound', label: 'Outbound' },
                ]}
                aria-label="Direction"
              />
              <Group grow gap="xs">
                <TextInput
                  label="From"
                  type="date"
                  value={draft.from}
                  onChange={(e) => set('from', e.currentTarget.value)}
                />
                <TextInput label="To" type="date" value={draft.to} onChange={(e) => set('to', e.currentTarget.value)} />
              </Group>
              <Select
                label="Department"
                placeholder="Any department"
                clearable
                data={(departments.data ?? []).map((d) => ({ value: String(d.id), label: d.name }))}
                value={draft.department || null}
                onChange={(v) => set('department', v ?? '')}
              />
              <Button type="submit" disabled={busy} data-testid="rec-filter">
                {busy ? 'Loading' : 'Filter'}
              </Button>
            </Stack>
          </form>
        </Paper>
        <Stack gap="sm">
          {q.isError && <Alert color="red">{(q.error as Error).message}</Alert>}
          {q.isLoading ? (
            <Group justify="center" p="lg">
              <Loader aria-label="Loading" />
            </Group>
          ) : rows.length === 0 ? (
            <Text c="dimmed" data-testid="rec-empty">
              {applied ? 'No recordings match these filters.' : 'No recorded calls yet.'}
            </Text>
          ) : (
            rows.map((r) => (
              <Paper key={r.ticket_id} withBorder radius="md" p="sm" data-testid="recording">
                <Group justify="space-between" gap="xs" mb={6}>
                  <Group gap="xs">
                    <Text fw={600} size="sm">
                      {r.direction === 'outbound' ? 'To' : 'From'} {r.number || r.name || 'unknown number'}
                    </Text>
                    {r.emotion && (
                      <Badge color={emotionColor(r.emotion)} variant="light" size="sm">
                        {r.emotion}
                      </Badge>
                    )}
                  </Group>
                  <Text size="xs" c="dimmed">
                    {formatDateTime(r.started_at)} · {callDuration(r.duration)}
                    {r.assignee ? ` · ${r.assignee.split(',').join(', ')}` : ''}
                  </Text>
                </Group>
                {r.recording && (
                  // biome-ignore lint/a11y/useMediaCaption: a call recording has no captions; its transcript is on the call
                  <audio controls preload="none" src={r.recording} style={{ width: '100%' }} />
                )}
                <Text size="xs" mt={4}>
                  <Link to={`/call/${r.ticket_id}`}>Call details</Link>
                </Text>
              </Paper>
            ))
          )}
          {q.hasNextPage && (
            <Button
              variant="default"
              onClick={() => void q.fetchNextPage()}
              loading={q.isFetchingNextPage}
              data-testid="rec-more"
            >
              Show More...
            </Button>
          )}
        </Stack>
      </Box>
      <style>{`.rec-layout { grid-template-columns: 1fr; }
@media (min-width: 62em) { .rec-layout { grid-template-columns: 18rem minmax(0, 1fr); } }`}</style>
    </Stack>
  );
}
