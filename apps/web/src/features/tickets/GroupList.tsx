import { Badge, Button, Group, Stack, Text } from '@mantine/core';
import { TICKET_LOAD2_STEP } from '@parley/contracts';
import { useInfiniteQuery } from '@tanstack/react-query';
import { ticketsApi } from '../../lib/api/tickets';
import { ticketKeys } from '../../lib/queryKeys';
import { type RowActions, TicketTable } from './TicketTable';

/** TICKET-35: a department's or a label's tickets, 10 more at a time. */
export function GroupList({
  tab,
  status,
  id,
  name,
  a,
}: {
  tab: 'department' | 'label';
  status: string;
  id: number;
  name: string;
  a: RowActions;
}) {
  const q = useInfiniteQuery({
    queryKey: ticketKeys.tab(tab, status, id),
    queryFn: ({ pageParam }) => ticketsApi.load2(tab, status, id, pageParam),
    initialPageParam: 0,
    getNextPageParam: (last, all) =>
      last.data.length >= TICKET_LOAD2_STEP ? all.reduce((n, p) => n + p.data.length, 0) : undefined,
  });
  const rows = q.data?.pages.flatMap((p) => p.data) ?? [];
  const count = q.data?.pages[0]?.count ?? 0;
  return (
    <Stack gap={4} data-testid={`${tab}-group`}>
      <Group gap="xs">
        <Text fw={600}>{name}</Text>
        <Badge size="sm" variant="light" color="gray">
          {count}
        </Badge>
      </Group>
      {rows.length > 0 ? (
        <TicketTable rows={rows} a={a} />
      ) : (
        <Text size="sm" c="dimmed">
          {q.isPending ? 'Loading…' : 'No tickets.'}
        </Text>
      )}
      {q.hasNextPage && (
        <Button
          variant="subtle"
          size="xs"
          w="fit-content"
          onClick={() => q.fetchNextPage()}
          loading={q.isFetchingNextPage}
        >
          Show More
        </Button>
      )}
    </Stack>
  );
}
