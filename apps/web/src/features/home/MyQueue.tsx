import { Anchor, Badge, Button, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { type TicketQueue, ticketDate } from '@parley/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../../lib/http';
import { ticketKeys } from '../../lib/queryKeys';
import { realtime } from '../../lib/realtime';

const Q = {
  title: 'My queue',
  open: 'Open',
  waiting: 'Waiting',
  atRisk: 'SLA at risk',
  none: 'Nothing at risk.',
  breached: 'Overdue',
  due: (at: string) => `Due ${at}`,
  /** After the badge: which target is at risk. */
  target: { response: 'answer', resolution: 'resolution' },
  showMine: 'Show my tickets',
} as const;

/** Ticket events come in bursts (a bulk change sends one per ticket): the queue is read once after them. */
const RELOAD_MS = 300;

/**
 * Home's view of the agent's own work: how many of my tickets are open and waiting (each opens the list's
 * Mine view) and my tickets whose SLA answer wait or resolution time has reached its warning, due soonest
 * first (which of the two is said after the title), each opening its ticket. Kept live by the ticket events; read again each minute as SLA times come closer.
 */
export function MyQueue() {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const queue = useQuery({
    queryKey: ticketKeys.queue,
    queryFn: () => api<{ data: TicketQueue }>('GET', '/api/ticket/queue').then((r) => r.data),
    staleTime: 30_000,
    refetchInterval: 60_000,
  });
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const reload = () => {
      clearTimeout(timer);
      timer = setTimeout(() => void qc.invalidateQueries({ queryKey: ticketKeys.queue }), RELOAD_MS);
    };
    const offs = [realtime.on('createTicket', reload), realtime.on('updateTicket', reload)];
    return () => {
      clearTimeout(timer);
      for (const off of offs) off();
    };
  }, [qc]);
  const q = queue.data;
  return (
    <Card withBorder radius="md" padding="lg" data-testid="my-queue">
      <Stack>
        <Title order={2} size="h4">
          {Q.title}
        </Title>
        <SimpleGrid cols={2}>
          {(['open', 'waiting'] as const).map((k) => (
            <Button
              key={k}
              variant="light"
              h="auto"
              py="sm"
              onClick={() => navigate('/ticket?view=mine')}
              data-testid={`queue-${k}`}
            >
              <Stack gap={0} align="center">
                <Text fz={28} fw={700} lh={1.1}>
                  {q ? q[k] : '…'}
                </Text>
                <Text size="sm">{k === 'open' ? Q.open : Q.waiting}</Text>
              </Stack>
            </Button>
          ))}
        </SimpleGrid>
        <div>
          <Text fw={600} size="sm" mb={6}>
            {Q.atRisk}
          </Text>
          {q && q.atRisk.length === 0 && (
            <Text size="sm" c="dimmed">
              {Q.none}
            </Text>
          )}
          <Stack gap={6}>
            {q?.atRisk.map((t) => (
              <Group key={t.id} gap="xs" wrap="nowrap" data-testid="queue-risk">
                <Badge size="sm" color={t.breached ? 'red' : 'orange'} variant="light" tt="none" miw={86}>
                  {t.breached ? Q.breached : Q.due(ticketDate(t.due_at))}
                </Badge>
                <Anchor
                  component="button"
                  size="sm"
                  onClick={() => navigate(`/ticket/${t.id}`)}
                  lineClamp={1}
                  ta="left"
                >
                  #{t.ticket_number} {t.title}
                </Anchor>
                <Text size="xs" c="dimmed" data-testid="queue-risk-target" style={{ flexShrink: 0 }}>
                  {Q.target[t.target]}
                </Text>
              </Group>
            ))}
          </Stack>
        </div>
      </Stack>
    </Card>
  );
}
