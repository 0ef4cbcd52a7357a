import { Badge, Group, Stack, Text } from '@mantine/core';
import { SLA_POLICY_STRINGS as P, type SlaTarget, slaTimeLeft } from '@parley/contracts';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { formatDateTime } from '../../lib/dates';
import { slaKeys } from '../../lib/queryKeys';
import { slaApi } from './api';
import { S } from './strings';

const COLORS = { running: 'blue', paused: 'gray', met: 'green', breached: 'red' } as const;

function Row({ label, target, now }: { label: string; target: SlaTarget; now: number }) {
  // Paused while the ticket is Pending: the due time moves on when it resumes, so no time left is shown.
  const text =
    target.state === 'met'
      ? P.met
      : target.state === 'paused'
        ? P.paused
        : target.state === 'breached'
          ? `${P.breached} · ${slaTimeLeft(target.dueAt, now)}`
          : slaTimeLeft(target.dueAt, now);
  return (
    <Group justify="space-between" gap="xs" wrap="nowrap" data-testid="ticket-sla-row">
      <Text size="sm">{label}</Text>
      <Badge size="sm" variant="light" color={COLORS[target.state]} tt="none" title={formatDateTime(target.dueAt)}>
        {text}
      </Badge>
    </Group>
  );
}

/**
 * The ticket's SLA under its policy: time left (or Paused / Breached / Met) for the first response, the next
 * response and the resolution. Nothing when no policy applies. `version` (the ticket's updated_at) reloads
 * it when the ticket changes; the minute tick keeps the time left current.
 */
export function TicketSlaStatus({ ticketId, version }: { ticketId: number; version: number }) {
  const q = useQuery({
    queryKey: slaKeys.ticket(ticketId, version),
    queryFn: () => slaApi.ticket(ticketId),
    refetchInterval: 60_000,
  });
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(t);
  }, []);
  const d = q.data;
  if (!d?.policy) return null;
  const rows = [
    [P.firstResponse, d.firstResponse],
    [P.nextResponse, d.nextResponse],
    [P.resolution, d.resolution],
  ] as const;
  return (
    <Stack gap={4} data-testid="ticket-sla">
      <Text size="xs" c="dimmed" fw={600}>
        {S.slaPolicy(d.policy.name)}
      </Text>
      {rows.map(([label, target]) => target && <Row key={label} label={label} target={target} now={now} />)}
    </Stack>
  );
}
