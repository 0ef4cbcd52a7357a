import { ActionIcon, Button, Group, Paper, Popover, Stack, Text, TextInput } from '@mantine/core';
import {
  SCHEDULED_STRINGS,
  type ScheduledAnswer,
  type ScheduledEmail,
  type ScheduledListAnswer,
} from '@parley/contracts';
import { IconClock, IconX } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { formatDateTime, fromLocalInput, toLocalInput } from '../../lib/dates';
import { api, errorText } from '../../lib/http';
import { scheduledKeys } from '../../lib/queryKeys';
import { useRealtimeEvent } from '../../lib/realtime';
import { useWrite } from '../../lib/useWrite';
import { toast } from '../../ui/toast';
import { CONVERSATION_STRINGS as S } from './strings';

const scheduledApi = {
  list: (ticketId: number) => api<ScheduledListAnswer>('GET', `/api/ticket/scheduled/${ticketId}`),
  add: (ticketId: number, message: string, sendAt: number, email?: ScheduledEmail) =>
    api<ScheduledAnswer>('POST', '/api/ticket/scheduled', {
      ticket_id: ticketId,
      message,
      send_at: sendAt,
      ...(email ? { email } : {}),
    }),
  cancel: (id: number) => api('DELETE', `/api/ticket/scheduled/${id}`),
};

/** Tomorrow at 09:00 here: the time a follow-up is most often meant for. */
function tomorrowMorning(now = Date.now()): number {
  const d = new Date(now + 86_400_000);
  d.setHours(9, 0, 0, 0);
  return d.getTime();
}

/**
 * The composer's clock: the text written so far is kept and sent at a chosen time (on the ticket's own
 * channel, as the agent's message). The server checks the time and the ticket and its words are shown here.
 */
export function ScheduleButton({
  ticketId,
  text,
  onScheduled,
  email,
  disabled = false,
}: {
  ticketId: number;
  text: string;
  onScheduled(): void;
  /** An e-mail reply's recipients and subject as written, or why they cannot go (a bad address). */
  email?: () => { error: string } | { email: ScheduledEmail };
  disabled?: boolean;
}) {
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const [when, setWhen] = useState(() => toLocalInput(tomorrowMorning()));
  const { run, busy, error, setError } = useWrite();
  const schedule = async () => {
    const sendAt = fromLocalInput(when);
    if (sendAt === null) return setError(SCHEDULED_STRINGS.inPast);
    const mail = email?.();
    if (mail && 'error' in mail) return setError(mail.error);
    if (!(await run(() => scheduledApi.add(ticketId, text.trim(), sendAt, mail?.email)))) return;
    setOpen(false);
    toast({ message: SCHEDULED_STRINGS.scheduledFor(formatDateTime(sendAt)) });
    onScheduled();
    // The list refetches once the popover has closed.
    await qc.invalidateQueries({ queryKey: scheduledKeys.ticket(ticketId) });
  };
  return (
    <Popover opened={open} onChange={setOpen} position="top-end" withArrow trapFocus>
      <Popover.Target>
        <ActionIcon
          variant="default"
          size="lg"
          aria-label={S.schedule}
          disabled={disabled || text.trim() === ''}
          onClick={() => setOpen((o) => !o)}
          data-testid="schedule-open"
        >
          <IconClock size={18} />
        </ActionIcon>
      </Popover.Target>
      <Popover.Dropdown>
        <Stack gap="xs" maw={280}>
          <TextInput
            type="datetime-local"
            label={S.scheduleWhen}
            value={when}
            onChange={(e) => setWhen(e.currentTarget.value)}
            data-testid="schedule-when"
          />
          {error && (
            <Text size="sm" c="light-dark(var(--mantine-color-red-9), var(--mantine-color-red-4))" role="alert">
              {error}
            </Text>
          )}
          <Button size="compact-sm" loading={busy} onClick={() => void schedule()} data-testid="schedule-save">
            {S.scheduleSend}
          </Button>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}

/** The ticket's messages still to go (or that could not go), each with Cancel; gone once sent. */
export function ScheduledList({ ticketId }: { ticketId: number }) {
  const qc = useQueryClient();
  const q = useQuery({ queryKey: scheduledKeys.ticket(ticketId), queryFn: () => scheduledApi.list(ticketId) });
  // A scheduled message that went is a new message of this ticket: the list follows.
  useRealtimeEvent('newMessage', (e) => {
    if (e.ticketId === ticketId && (q.data?.data.length ?? 0) > 0)
      void qc.invalidateQueries({ queryKey: scheduledKeys.ticket(ticketId) });
  });
  const cancelling = useMutation({
    mutationFn: (id: number) => scheduledApi.cancel(id),
    onSuccess: () => toast({ message: SCHEDULED_STRINGS.cancelled }),
    onError: (e) => toast({ message: errorText(e), color: 'red' }),
    // Gone or not, the list is read again.
    onSettled: () => qc.invalidateQueries({ queryKey: scheduledKeys.ticket(ticketId) }),
  });
  const list = q.data?.data ?? [];
  if (list.length === 0) return null;
  const cancel = (id: number) => cancelling.mutate(id);
  return (
    <Stack gap={4} data-testid="scheduled-list">
      {list.map((m) => (
        <Paper key={m.id} withBorder radius="sm" px="xs" py={4} data-testid="scheduled-item">
          <Group gap="xs" wrap="nowrap" justify="space-between">
            <Stack gap={0} miw={0}>
              <Text size="xs" c="dimmed">
                {m.state === 'failed'
                  ? S.scheduleFailed(m.error ?? '')
                  : SCHEDULED_STRINGS.scheduledFor(formatDateTime(m.sendAt))}
              </Text>
              <Text size="sm" truncate="end">
                {m.message}
              </Text>
            </Stack>
            {m.state === 'pending' && (
              <ActionIcon
                variant="subtle"
                color="gray"
                aria-label={S.scheduleCancel}
                onClick={() => cancel(m.id)}
                data-testid="scheduled-cancel"
              >
                <IconX size={16} />
              </ActionIcon>
            )}
          </Group>
        </Paper>
      ))}
    </Stack>
  );
}
