import { ActionIcon, Anchor, Button, Group, NumberInput, Stack, Text, TextInput, Tooltip } from '@mantine/core';
import { hoursMinutes, type TimeEntry } from '@parley/contracts';
import { IconPencil, IconPlayerPlay, IconPlayerStop, IconPlus, IconTrash } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { formatDay, isoDay } from '../../lib/dates';
import { errorText } from '../../lib/http';
import { timerKeys } from '../../lib/queryKeys';
import { useSession } from '../../lib/session';
import { useWrite } from '../../lib/useWrite';
import { toast } from '../../ui/toast';
import { timerApi } from './api';
import { clockText } from './clock';
import { T } from './strings';

/** Seconds since `from` by the server's clock (`skew`), ticking every second while `on`. */
function useElapsed(from: number | null, skew: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (from === null) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [from]);
  return from === null ? 0 : Math.max(0, (now + skew - from) / 1000);
}

/**
 * The ticket's "Time" field in its info panel: the caller's running clock with Stop (or Start), everyone's
 * total on the ticket, "Add time" by hand, and the entries (one's own, an admin's any, changed or removed).
 */
export function TicketTime({ ticketId }: { ticketId: number }) {
  const qc = useQueryClient();
  const q = useQuery({ queryKey: timerKeys.ticket(ticketId), queryFn: () => timerApi.ticket(ticketId) });
  const running = q.data?.running ?? null;
  const elapsed = useElapsed(running?.started_at ?? null, q.data?.skew ?? 0);
  const [form, setForm] = useState<'closed' | 'new' | TimeEntry>('closed');
  const toggle = useMutation({
    // Starting answers the timer it stopped elsewhere, if any; stopping has nothing more to say.
    mutationFn: async (): Promise<TimeEntry | null> => {
      if (!running) return (await timerApi.start(ticketId)).stopped;
      await timerApi.stop();
      return null;
    },
    onSuccess: (stopped) => {
      if (stopped) toast({ message: T.stoppedOther(stopped.ticket_number) });
      return qc.invalidateQueries({ queryKey: timerKeys.all });
    },
    onError: (err) => toast({ message: errorText(err, T.failed), color: 'red' }),
  });
  const total = (q.data?.total_seconds ?? 0) + elapsed;

  return (
    <Stack gap={6} data-testid="ticket-time">
      <Text size="xs" c="dimmed" fw={600}>
        {T.field}
      </Text>
      <Group justify="space-between" gap="xs" wrap="nowrap">
        <Text
          size="sm"
          ff="monospace"
          fw={running ? 700 : undefined}
          c={running ? undefined : 'dimmed'}
          data-testid="ticket-time-clock"
          aria-live="off"
        >
          {running ? clockText(elapsed) : T.notRunning}
        </Text>
        <Button
          size="compact-sm"
          variant="light"
          color={running ? 'red' : undefined}
          leftSection={running ? <IconPlayerStop size={14} /> : <IconPlayerPlay size={14} />}
          loading={toggle.isPending}
          disabled={!q.data}
          onClick={() => toggle.mutate()}
          data-testid={running ? 'ticket-time-stop' : 'ticket-time-start'}
        >
          {running ? T.stop : T.start}
        </Button>
      </Group>
      {q.data?.elsewhere && (
        <Text size="xs" c="dimmed" data-testid="ticket-time-elsewhere">
          {T.runsElsewhere}{' '}
          <Anchor component={Link} to={`/ticket/${q.data.elsewhere.ticket_id}`} size="xs">
            #{q.data.elsewhere.ticket_number}
          </Anchor>
        </Text>
      )}
      <Group justify="space-between" gap="xs" wrap="nowrap">
        <Text size="sm">{T.total}</Text>
        <Text size="sm" fw={600} data-testid="ticket-time-total">
          {hoursMinutes(total)}
        </Text>
      </Group>
      {form === 'closed' ? (
        <Button
          size="compact-xs"
          variant="subtle"
          leftSection={<IconPlus size={12} />}
          w="fit-content"
          onClick={() => setForm('new')}
          data-testid="ticket-time-add"
        >
          {T.addTime}
        </Button>
      ) : (
        <EntryForm
          key={form === 'new' ? 'new' : form.id}
          ticketId={ticketId}
          entry={form === 'new' ? null : form}
          onDone={() => setForm('closed')}
        />
      )}
      {(q.data?.entries.length ?? 0) > 0 && (
        <Stack gap={2} aria-label={T.entriesOnTicket} component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
          {q.data!.entries.map((e) => (
            <EntryLine key={e.id} entry={e} onEdit={() => setForm(e)} />
          ))}
        </Stack>
      )}
    </Stack>
  );
}

function EntryLine({ entry: e, onEdit }: { entry: TimeEntry; onEdit(): void }) {
  const { state } = useSession();
  const me = state.phase === 'signedIn' ? state.session : null;
  const mine = me?.type === 'admin' || me?.userId === e.user_id;
  const { run, busy } = useWrite({ invalidate: timerKeys.all, fallback: T.failed });
  const remove = async () => {
    if (!(await run(() => timerApi.remove(e.id)))) toast({ message: T.failed, color: 'red' });
  };
  return (
    <Group component="li" gap={6} wrap="nowrap" data-testid="ticket-time-entry">
      <Text size="xs" style={{ flex: 1, minWidth: 0 }} truncate="end" title={e.note || undefined}>
        {formatDay(e.day)} · {e.user}
        {e.note ? ` · ${e.note}` : ''}
      </Text>
      <Text size="xs" fw={600}>
        {e.running ? T.running : hoursMinutes(e.seconds)}
      </Text>
      {mine && !e.running && (
        <Tooltip label={T.edit}>
          <ActionIcon size="sm" variant="subtle" aria-label={T.edit} onClick={onEdit}>
            <IconPencil size={14} />
          </ActionIcon>
        </Tooltip>
      )}
      {mine && (
        <Tooltip label={T.remove}>
          <ActionIcon
            size="sm"
            variant="subtle"
            color="red"
            aria-label={T.remove}
            loading={busy}
            onClick={() => void remove()}
          >
            <IconTrash size={14} />
          </ActionIcon>
        </Tooltip>
      )}
    </Group>
  );
}

/** Minutes, day and note: a new entry on the ticket, or a change to one. */
function EntryForm({ ticketId, entry, onDone }: { ticketId: number; entry: TimeEntry | null; onDone(): void }) {
  const [minutes, setMinutes] = useState<number | string>(entry ? Math.round(entry.seconds / 60) : 15);
  const [date, setDate] = useState(entry?.day ?? isoDay(Date.now()));
  const [note, setNote] = useState(entry?.note ?? '');
  const { run, busy, error } = useWrite({ invalidate: timerKeys.all, fallback: T.failed });
  const save = async () => {
    const input = { minutes: Number(minutes), date, note };
    const ok = await run(() => (entry ? timerApi.change(entry.id, input) : timerApi.add(ticketId, input)));
    if (ok) onDone();
  };
  return (
    <Stack gap={6} data-testid="ticket-time-form">
      <Group gap="xs" grow wrap="nowrap">
        <NumberInput
          size="xs"
          label={T.minutes}
          min={1}
          max={1440}
          allowDecimal={false}
          value={minutes}
          onChange={setMinutes}
          data-testid="ticket-time-minutes"
        />
        <TextInput
          size="xs"
          type="date"
          label={T.date}
          value={date}
          onChange={(e) => setDate(e.currentTarget.value)}
          data-testid="ticket-time-date"
        />
      </Group>
      <TextInput
        size="xs"
        label={T.note}
        value={note}
        maxLength={500}
        onChange={(e) => setNote(e.currentTarget.value)}
        data-testid="ticket-time-note"
      />
      {error && (
        <Text size="xs" c="red" role="alert">
          {error}
        </Text>
      )}
      <Group gap="xs" justify="flex-end">
        <Button size="compact-xs" variant="default" onClick={onDone}>
          {T.cancel}
        </Button>
        <Button size="compact-xs" loading={busy} onClick={() => void save()} data-testid="ticket-time-save">
          {T.save}
        </Button>
      </Group>
    </Stack>
  );
}
