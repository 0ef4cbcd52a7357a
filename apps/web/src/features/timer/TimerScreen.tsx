import {
  Alert,
  Anchor,
  Badge,
  Button,
  Card,
  Group,
  Loader,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { hoursMinutes, type TimeEntry, type TimeRangeAnswer } from '@parley/contracts';
import { IconDownload } from '@tabler/icons-react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { statusApi } from '../../lib/api/status';
import { formatDay, isoDay } from '../../lib/dates';
import { errorText } from '../../lib/http';
import { statusKeys, timerKeys } from '../../lib/queryKeys';
import { useSession } from '../../lib/session';
import { timerApi } from './api';
import { T } from './strings';

/** Monday to Sunday of the week holding `now`, YYYY-MM-DD in the browser's time zone. */
export function thisWeek(now = new Date()): { from: string; to: string } {
  const monday = new Date(now.getFullYear(), now.getMonth(), now.getDate() - ((now.getDay() + 6) % 7));
  const sunday = new Date(monday.getFullYear(), monday.getMonth(), monday.getDate() + 6);
  return { from: isoDay(monday), to: isoDay(sunday) };
}

const duration = (e: TimeEntry) => (e.running ? T.running : hoursMinutes(e.seconds));

/** One CSV cell: quoted, and text a spreadsheet would run as a formula made plain. */
const cell = (v: string | number) => {
  const s = String(v);
  return `"${(/^[=+\-@\t\r]/.test(s) ? `'${s}` : s).replace(/"/g, '""')}"`;
};

function downloadCsv(entries: TimeEntry[]) {
  const head = [T.day, T.agent, T.ticket, T.subject, T.duration, T.minutes, T.note];
  const rows = entries.map((e) => [
    formatDay(e.day),
    e.user,
    `#${e.ticket_number}`,
    e.subject,
    duration(e),
    Math.round(e.seconds / 60),
    e.note,
  ]);
  const text = [head, ...rows].map((r) => r.map(cell).join(',')).join('\r\n');
  const url = URL.createObjectURL(new Blob([`\uFEFF${text}\r\n`], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = 'time-entries.csv';
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * `/timer` (SHELL-12, SHELL-13 design): the team's time tracked on tickets over a range of days (this week
 * by default): the entries, and the totals per agent and overall. An admin picks an agent or everyone; an
 * agent sees their own time.
 */
export function TimerScreen() {
  const { state } = useSession();
  const me = state.phase === 'signedIn' ? state.session : null;
  const admin = me?.type === 'admin';
  const [range, setRange] = useState(thisWeek);
  const [agent, setAgent] = useState<string | null>(null);
  const userId = admin && agent ? Number(agent) : null;
  const team = useQuery({ queryKey: statusKeys.online, queryFn: statusApi.online, staleTime: 60_000, enabled: admin });
  const valid = /^\d{4}-\d{2}-\d{2}$/.test(range.from) && /^\d{4}-\d{2}-\d{2}$/.test(range.to);
  const q = useQuery({
    queryKey: timerKeys.range(range.from, range.to, userId),
    queryFn: () => timerApi.range(range.from, range.to, userId),
    placeholderData: keepPreviousData,
    enabled: valid,
    retry: false,
  });
  const agents = useMemo(
    () => [
      { value: '', label: T.everyone },
      ...(team.data ?? []).map((u) => ({ value: String(u.userId), label: u.name || u.username })),
    ],
    [team.data],
  );
  const d = q.data;
  return (
    <Stack gap="md" p={{ base: 'sm', sm: 'md' }} data-testid="timer">
      <Group justify="space-between" align="flex-end" wrap="wrap">
        <Stack gap={2}>
          <Title order={1} size="h2">
            {T.title}
          </Title>
          <Text size="sm" c="dimmed">
            {T.intro}
          </Text>
        </Stack>
        <Button
          variant="default"
          leftSection={<IconDownload size={16} />}
          disabled={!d || d.entries.length === 0}
          onClick={() => d && downloadCsv(d.entries)}
          data-testid="timer-csv"
        >
          {T.csv}
        </Button>
      </Group>
      <Group gap="sm" align="flex-end" wrap="wrap">
        <TextInput
          type="date"
          label={T.from}
          value={range.from}
          onChange={(e) => setRange({ ...range, from: e.currentTarget.value })}
          w={{ base: 'calc(50% - 6px)', xs: 170 }}
          data-testid="timer-from"
        />
        <TextInput
          type="date"
          label={T.to}
          value={range.to}
          onChange={(e) => setRange({ ...range, to: e.currentTarget.value })}
          w={{ base: 'calc(50% - 6px)', xs: 170 }}
          data-testid="timer-to"
        />
        <Button variant="subtle" onClick={() => setRange(thisWeek())}>
          {T.thisWeek}
        </Button>
        {admin ? (
          <Select
            label={T.agent}
            data={agents}
            value={agent ?? ''}
            onChange={(v) => setAgent(v || null)}
            allowDeselect={false}
            w={{ base: '100%', xs: 220 }}
            data-testid="timer-agent"
          />
        ) : (
          <Badge variant="light" tt="none" size="lg">
            {T.yourTime}
          </Badge>
        )}
      </Group>
      {q.isPending && valid && <Loader size="sm" aria-label="Loading" />}
      {q.isError && (
        <Text c="red" role="alert">
          {errorText(q.error)}
        </Text>
      )}
      {d && <Totals d={d} />}
      {d?.truncated && <Alert color="yellow">{T.truncated}</Alert>}
      {d && d.entries.length === 0 && <Text c="dimmed">{T.noEntries}</Text>}
      {d && d.entries.length > 0 && <Entries entries={d.entries} />}
    </Stack>
  );
}

function Totals({ d }: { d: TimeRangeAnswer }) {
  return (
    <Paper withBorder radius="md" p="md" data-testid="timer-totals" aria-label={T.totals} component="section">
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={2} size="h4">
            {T.totals}
          </Title>
          <Text fw={700} data-testid="timer-total-overall">
            {T.overall}: {hoursMinutes(d.total_seconds)}
          </Text>
        </Group>
        {d.totals.length > 0 && (
          <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="xs">
            {d.totals.map((t) => (
              <Group
                key={t.user_id}
                justify="space-between"
                wrap="nowrap"
                gap="xs"
                data-testid="timer-total-agent"
                p="xs"
                style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 8 }}
              >
                <Stack gap={0} style={{ minWidth: 0 }}>
                  <Text size="sm" fw={600} truncate="end">
                    {t.user}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {T.entries(t.entries)}
                  </Text>
                </Stack>
                <Text fw={700}>{hoursMinutes(t.seconds)}</Text>
              </Group>
            ))}
          </SimpleGrid>
        )}
      </Stack>
    </Paper>
  );
}

function TicketLink({ e }: { e: TimeEntry }) {
  return (
    <Anchor component={Link} to={`/ticket/${e.ticket_id}`} fw={500}>
      #{e.ticket_number}
    </Anchor>
  );
}

/** The entries: a table from `sm` up, one card per entry on a phone. */
function Entries({ entries }: { entries: TimeEntry[] }) {
  return (
    <>
      <Paper withBorder radius="md" visibleFrom="sm">
        <Table verticalSpacing={8} highlightOnHover data-testid="timer-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{T.day}</Table.Th>
              <Table.Th>{T.agent}</Table.Th>
              <Table.Th>{T.ticket}</Table.Th>
              <Table.Th>{T.subject}</Table.Th>
              <Table.Th ta="right">{T.duration}</Table.Th>
              <Table.Th>{T.note}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {entries.map((e) => (
              <Table.Tr key={e.id} data-testid="timer-row">
                <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDay(e.day)}</Table.Td>
                <Table.Td>{e.user}</Table.Td>
                <Table.Td>
                  <TicketLink e={e} />
                </Table.Td>
                <Table.Td>{e.subject}</Table.Td>
                <Table.Td ta="right" style={{ whiteSpace: 'nowrap' }}>
                  {duration(e)}
                </Table.Td>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{e.note}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Paper>
      <Stack gap="xs" hiddenFrom="sm" data-testid="timer-cards">
        {entries.map((e) => (
          <Card key={e.id} withBorder radius="md" padding="sm" data-testid="timer-card">
            <Group justify="space-between" wrap="nowrap" gap="xs">
              <Text size="sm" fw={600}>
                {formatDay(e.day)} · {e.user}
              </Text>
              <Text fw={700}>{duration(e)}</Text>
            </Group>
            <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
              <TicketLink e={e} /> {e.subject}
            </Text>
            {e.note && (
              <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                {e.note}
              </Text>
            )}
          </Card>
        ))}
      </Stack>
    </>
  );
}
