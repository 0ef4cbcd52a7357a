import {
  ActionIcon,
  Anchor,
  Badge,
  Button,
  Checkbox,
  CopyButton,
  Group,
  Loader,
  Modal,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
  Tooltip,
  UnstyledButton,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { CALENDAR_STRINGS, type CalendarAnswer, type CalendarEvent } from '@parley/contracts';
import { IconChevronLeft, IconChevronRight, IconCopy, IconPlus, IconPointFilled } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { formatDateTime, formatDay, formatTime, isoDay, monthTitle } from '../../lib/dates';
import { errorText } from '../../lib/http';
import { calendarKeys } from '../../lib/queryKeys';
import { useSession } from '../../lib/session';
import { useWrite } from '../../lib/useWrite';
import { EmptyScreen } from '../../ui/EmptyScreen';
import { toast } from '../../ui/toast';
import { calendarApi } from './api';

const DAY_MS = 86_400_000;
const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** The days of a month's grid: from the Monday on or before the 1st to the Sunday on or after its last day. */
function gridDays(year: number, month: number): Date[] {
  const first = new Date(year, month, 1);
  const start = new Date(year, month, 1 - ((first.getDay() + 6) % 7));
  const last = new Date(year, month + 1, 0);
  const end = new Date(year, month + 1, 0 + ((7 - last.getDay()) % 7));
  const days: Date[] = [];
  for (let d = start; d <= end; d = new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1)) days.push(d);
  return days;
}

interface DayItems {
  events: CalendarEvent[];
  holidays: CalendarAnswer['holidays'];
  appointments: CalendarAnswer['appointments'];
}

/** Every item on each local day (an event on each day it spans). */
function byDay(data: CalendarAnswer | undefined, days: Date[]): Map<string, DayItems> {
  const out = new Map<string, DayItems>(days.map((d) => [isoDay(d), { events: [], holidays: [], appointments: [] }]));
  if (!data) return out;
  for (const e of data.events)
    for (let t = e.starts_at; t <= Math.max(e.ends_at, e.starts_at); t += DAY_MS) out.get(isoDay(t))?.events.push(e);
  for (const h of data.holidays) out.get(h.date)?.holidays.push(h);
  for (const a of data.appointments) out.get(a.date)?.appointments.push(a);
  return out;
}

/** SHELL-20, SHELL-21: `/calendar`, `/calendar/:contact` (one contact's) and `/calendar/event/:eventId`. */
export function CalendarScreen() {
  const { contact, eventId } = useParams();
  const { state } = useSession();
  const me = state.phase === 'signedIn' ? state.session : null;
  if (me && me.type !== 'admin' && me.permission?.includes('hide_calendar'))
    return <EmptyScreen title={CALENDAR_STRINGS.title} text={CALENDAR_STRINGS.hidden} />;
  const whole = (v: string) => (/^\d{1,15}$/.test(v) && Number(v) > 0 ? Number(v) : null);
  if (eventId !== undefined) {
    const id = whole(eventId);
    return id === null ? (
      <EmptyScreen title={CALENDAR_STRINGS.title} text={CALENDAR_STRINGS.notFound} />
    ) : (
      <EventPage id={id} />
    );
  }
  if (contact !== undefined && whole(contact) === null)
    return <EmptyScreen title={CALENDAR_STRINGS.title} text={CALENDAR_STRINGS.contactNotFound} />;
  return <MonthView contact={contact === undefined ? null : whole(contact)} />;
}

function MonthView({ contact }: { contact: number | null }) {
  const navigate = useNavigate();
  const phone = useMediaQuery('(max-width: 48em)');
  const now = new Date();
  const [month, setMonth] = useState({ year: now.getFullYear(), month: now.getMonth() });
  const [creating, setCreating] = useState<string | null>(null);
  const days = gridDays(month.year, month.month);
  // A day either side: the server's days are UTC, the grid's the browser's.
  const from = isoDay(days[0]!.getTime() - DAY_MS);
  const to = isoDay(days[days.length - 1]!.getTime() + DAY_MS);
  const q = useQuery({
    queryKey: calendarKeys.range(from, to, contact),
    queryFn: () => calendarApi.range(from, to, contact ?? undefined),
    retry: false,
  });
  const items = byDay(q.data, days);
  const shift = (by: number) => {
    const d = new Date(month.year, month.month + by, 1);
    setMonth({ year: d.getFullYear(), month: d.getMonth() });
  };
  const today = isoDay(Date.now());
  const inMonth = days.filter((d) => d.getMonth() === month.month);
  const busyDays = inMonth.filter((d) => {
    const it = items.get(isoDay(d))!;
    return it.events.length + it.holidays.length + it.appointments.length > 0;
  });

  return (
    <Stack gap="md" data-testid="calendar">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Group gap="xs">
          <Title order={1} size="h2" data-testid="calendar-month">
            {monthTitle(month.year, month.month)}
          </Title>
          {contact !== null && (
            <Anchor component={Link} to={`/contacts/${contact}`} size="sm">
              {q.data?.events[0]?.contact_name || 'Contact'}
            </Anchor>
          )}
        </Group>
        <Group gap="xs">
          <ActionIcon variant="default" size="lg" aria-label="Previous month" onClick={() => shift(-1)}>
            <IconChevronLeft size={18} />
          </ActionIcon>
          <Button variant="default" onClick={() => setMonth({ year: now.getFullYear(), month: now.getMonth() })}>
            Today
          </Button>
          <ActionIcon variant="default" size="lg" aria-label="Next month" onClick={() => shift(1)}>
            <IconChevronRight size={18} />
          </ActionIcon>
          <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(today)} data-testid="calendar-new">
            New event
          </Button>
        </Group>
      </Group>
      {q.isError && <Text c="red">{errorText(q.error)}</Text>}
      {q.isPending && <Loader size="sm" aria-label="Loading" />}
      {q.data && phone && (
        <Stack gap="xs" data-testid="calendar-agenda">
          {busyDays.length === 0 && <Text c="dimmed">{CALENDAR_STRINGS.noneThisMonth}</Text>}
          {busyDays.map((d) => (
            <Paper key={d.getTime()} withBorder radius="md" p="sm">
              <Text fw={600} size="sm" mb={4}>
                {WEEKDAYS[(d.getDay() + 6) % 7]} {formatDay(d)}
              </Text>
              <DayList items={items.get(isoDay(d))!} />
            </Paper>
          ))}
        </Stack>
      )}
      {q.data && !phone && (
        <Paper withBorder radius="md" p={0} style={{ overflow: 'hidden' }}>
          <SimpleGrid cols={7} spacing={0} verticalSpacing={0}>
            {WEEKDAYS.map((w) => (
              <Text key={w} size="xs" fw={600} c="dimmed" ta="center" py={6}>
                {w}
              </Text>
            ))}
            {days.map((d) => {
              const key = isoDay(d);
              return (
                <Stack
                  key={key}
                  gap={2}
                  p={6}
                  mih={110}
                  data-testid="calendar-day"
                  data-day={key}
                  style={{
                    borderTop: '1px solid var(--mantine-color-default-border)',
                    borderLeft: '1px solid var(--mantine-color-default-border)',
                    background: d.getMonth() === month.month ? undefined : 'var(--mantine-color-default-hover)',
                  }}
                >
                  <UnstyledButton
                    onClick={() => setCreating(key)}
                    aria-label={`${d.getDate()}: new event on ${formatDay(d)}`}
                    fz="sm"
                    fw={key === today ? 700 : 400}
                    c={d.getMonth() === month.month ? undefined : 'dimmed'}
                    td={key === today ? 'underline' : undefined}
                  >
                    {d.getDate()}
                  </UnstyledButton>
                  <DayList items={items.get(key)!} compact />
                </Stack>
              );
            })}
          </SimpleGrid>
        </Paper>
      )}
      <FeedLink />
      <EventModal
        day={creating}
        contact={contact}
        onClose={() => setCreating(null)}
        onSaved={(e) => {
          setCreating(null);
          navigate(`/calendar/event/${e.id}`);
        }}
      />
    </Stack>
  );
}

function DayList({ items, compact }: { items: DayItems; compact?: boolean }) {
  const size = compact ? 'xs' : 'sm';
  return (
    <>
      {items.holidays.map((h) => (
        <Badge
          key={`h-${h.date}-${h.name}`}
          color="red"
          variant="light"
          size={size}
          tt="none"
          fullWidth={compact}
          data-testid="calendar-holiday"
        >
          {h.name}
        </Badge>
      ))}
      {items.appointments.map((a) => (
        <Anchor
          key={`a-${a.ticket_id}`}
          component={Link}
          to={`/ticket/${a.ticket_id}`}
          size={size}
          lineClamp={1}
          data-testid="calendar-appointment"
        >
          <IconPointFilled
            size={12}
            color="var(--mantine-color-orange-6)"
            aria-hidden
            style={{ verticalAlign: 'middle' }}
          />
          Appointment: {a.name || a.title} #{a.ticket_number}
        </Anchor>
      ))}
      {items.events.map((e) => (
        <Anchor
          key={`e-${e.id}`}
          component={Link}
          to={`/calendar/event/${e.id}`}
          size={size}
          lineClamp={1}
          data-testid="calendar-event"
        >
          {e.all_day ? '' : `${formatTime(e.starts_at)} `}
          {e.title}
        </Anchor>
      ))}
    </>
  );
}

/** The user's private iCalendar address, for their own calendar app. */
function FeedLink() {
  const qc = useQueryClient();
  const [shown, setShown] = useState(false);
  const feed = useQuery({ queryKey: calendarKeys.feed, queryFn: () => calendarApi.feed(false), enabled: shown });
  const url = feed.data ? `${window.location.origin}/api/public/calendar/${feed.data}.ics` : '';
  if (!shown)
    return (
      <Group>
        <Button variant="subtle" size="compact-sm" onClick={() => setShown(true)} data-testid="calendar-feed">
          Subscribe in your calendar app
        </Button>
      </Group>
    );
  return (
    <Stack gap={4}>
      <Text size="sm" c="dimmed">
        {CALENDAR_STRINGS.feedHint}
      </Text>
      <Group gap={4} wrap="nowrap">
        <TextInput
          readOnly
          value={url}
          aria-label="Calendar feed address"
          style={{ flex: 1 }}
          data-testid="calendar-feed-url"
        />
        <CopyButton value={url}>
          {({ copied, copy }) => (
            <Tooltip label={copied ? 'Copied' : 'Copy'}>
              <ActionIcon variant="subtle" aria-label="Copy calendar feed address" onClick={copy}>
                <IconCopy size={16} />
              </ActionIcon>
            </Tooltip>
          )}
        </CopyButton>
        <Button
          variant="subtle"
          size="compact-sm"
          onClick={() =>
            void calendarApi.feed(true).then(
              (t) => qc.setQueryData(calendarKeys.feed, t),
              (e) => toast({ message: errorText(e), color: 'red' }),
            )
          }
        >
          New address
        </Button>
      </Group>
    </Stack>
  );
}

/** YYYY-MM-DD and HH:MM in the browser's time zone as ms. */
const toMs = (day: string, time: string) => new Date(`${day}T${time || '00:00'}`).getTime();

function EventModal({
  day,
  event,
  contact,
  onClose,
  onSaved,
}: {
  day: string | null;
  event?: CalendarEvent;
  contact: number | null;
  onClose(): void;
  onSaved(e: CalendarEvent): void;
}) {
  const opened = day !== null;
  const [title, setTitle] = useState('');
  const [date, setDate] = useState('');
  const [start, setStart] = useState('09:00');
  const [end, setEnd] = useState('10:00');
  const [allDay, setAllDay] = useState(false);
  const [notes, setNotes] = useState('');
  const { run, error, setError } = useWrite({ invalidate: calendarKeys.all });
  const [seen, setSeen] = useState<string | null>(null);
  if (opened && seen !== day) {
    setSeen(day);
    setTitle(event?.title ?? '');
    setDate(event ? isoDay(event.starts_at) : day);
    setStart(event && !event.all_day ? formatTime(event.starts_at) : '09:00');
    setEnd(event && !event.all_day ? formatTime(event.ends_at) : '10:00');
    setAllDay(event?.all_day ?? false);
    setNotes(event?.notes ?? '');
    setError(null);
  }
  if (!opened && seen !== null) setSeen(null);

  const save = async () => {
    setError(null);
    const starts = toMs(date, allDay ? '00:00' : start);
    const body = {
      title,
      starts_at: starts,
      ends_at: allDay ? starts : toMs(date, end),
      all_day: allDay,
      notes,
      contact_id: event ? event.contact_id : contact,
      ticket_id: event?.ticket_id ?? null,
    };
    let saved = null as CalendarEvent | null;
    const ok = await run(async () => {
      saved = event ? await calendarApi.update(event.id, body) : await calendarApi.create(body);
    });
    if (ok && saved) onSaved(saved);
  };
  return (
    <Modal opened={opened} onClose={onClose} title={event ? 'Edit event' : 'New event'} centered>
      <Stack gap="sm">
        <TextInput label="Title" value={title} onChange={(e) => setTitle(e.currentTarget.value)} data-autofocus />
        <TextInput label="Day" type="date" value={date} onChange={(e) => setDate(e.currentTarget.value)} />
        <Checkbox label="All day" checked={allDay} onChange={(e) => setAllDay(e.currentTarget.checked)} />
        {!allDay && (
          <Group grow>
            <TextInput label="Starts" type="time" value={start} onChange={(e) => setStart(e.currentTarget.value)} />
            <TextInput label="Ends" type="time" value={end} onChange={(e) => setEnd(e.currentTarget.value)} />
          </Group>
        )}
        <Textarea label="Notes" autosize minRows={2} value={notes} onChange={(e) => setNotes(e.currentTarget.value)} />
        {error && (
          <Text c="red" size="sm" role="alert">
            {error}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={() => void save()} data-testid="event-save">
            Save
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function EventPage({ id }: { id: number }) {
  const navigate = useNavigate();
  const qc = useQueryClient();
  const q = useQuery({ queryKey: calendarKeys.event(id), queryFn: () => calendarApi.event(id), retry: false });
  const [editing, setEditing] = useState(false);
  const e = q.data;
  const removal = useMutation({
    mutationFn: () => calendarApi.remove(id),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: calendarKeys.all });
      navigate('/calendar');
    },
    onError: (err) => toast({ message: errorText(err), color: 'red' }),
  });
  const remove = () => removal.mutate();
  return (
    <Stack gap="md" data-testid="calendar-event-page">
      <Anchor component={Link} to="/calendar" size="sm">
        Calendar
      </Anchor>
      {q.isPending && <Loader size="sm" aria-label="Loading" />}
      {q.isError && <EmptyScreen title={CALENDAR_STRINGS.title} text={errorText(q.error)} />}
      {e && (
        <Paper withBorder radius="md" p="md">
          <Stack gap="xs">
            <Title order={1} size="h2" style={{ overflowWrap: 'anywhere' }}>
              {e.title}
            </Title>
            <Text>
              {e.all_day
                ? `${formatDay(e.starts_at)} (all day)`
                : `${formatDateTime(e.starts_at)} – ${formatTime(e.ends_at)}`}
            </Text>
            {e.contact_id !== null && (
              <Anchor component={Link} to={`/contacts/${e.contact_id}`}>
                {e.contact_name}
              </Anchor>
            )}
            {e.ticket_id !== null && (
              <Anchor component={Link} to={`/ticket/${e.ticket_id}`}>
                Ticket
              </Anchor>
            )}
            {e.notes && (
              <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                {e.notes}
              </Text>
            )}
            <Text size="xs" c="dimmed">
              {e.created_by}
            </Text>
            <Group gap="xs">
              <Button variant="default" onClick={() => setEditing(true)}>
                Edit
              </Button>
              <Button variant="subtle" color="red" onClick={() => void remove()} data-testid="event-delete">
                Delete
              </Button>
            </Group>
          </Stack>
        </Paper>
      )}
      {e && (
        <EventModal
          day={editing ? isoDay(e.starts_at) : null}
          event={e}
          contact={e.contact_id}
          onClose={() => setEditing(false)}
          onSaved={() => setEditing(false)}
        />
      )}
    </Stack>
  );
}
