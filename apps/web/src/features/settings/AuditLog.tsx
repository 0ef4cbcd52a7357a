import { Button, Card, Stack, Table, Text, Title } from '@mantine/core';
import type { AuditItem } from '@parley/contracts';
import { useInfiniteQuery } from '@tanstack/react-query';
import dayjs from 'dayjs';
import { settingsApi } from './api';
import { t } from './strings';

/** Admin: the account's audit log, newest first, 50 at a time. */
export function AuditLog() {
  const q = useInfiniteQuery({
    queryKey: ['settings', 'audit'],
    queryFn: ({ pageParam }) => settingsApi.audit(pageParam),
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (last) => (last.data.length === 50 ? last.data.at(-1)?.id : undefined),
  });
  const rows: AuditItem[] = q.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <Card withBorder radius="md" padding="lg">
      <Stack>
        <Title order={3} size="h4">
          {t.audit}
        </Title>
        <Table.ScrollContainer minWidth={640}>
          <Table verticalSpacing={4}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>When</Table.Th>
                <Table.Th>Who</Table.Th>
                <Table.Th>What</Table.Th>
                <Table.Th>Details</Table.Th>
                <Table.Th>IP</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((r) => (
                <Table.Tr key={r.id} data-testid="audit-row">
                  <Table.Td>{dayjs(r.created_at).format('DD/MM/YYYY HH:mm:ss')}</Table.Td>
                  <Table.Td>{r.actor}</Table.Td>
                  <Table.Td>{r.action}</Table.Td>
                  <Table.Td>
                    <Text size="xs" c="dimmed" lineClamp={2}>
                      {Object.keys(r.detail).length ? JSON.stringify(r.detail) : ''}
                    </Text>
                  </Table.Td>
                  <Table.Td>{r.ip}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        {q.hasNextPage && (
          <Button variant="subtle" onClick={() => q.fetchNextPage()} loading={q.isFetchingNextPage}>
            {t.loadMore}
          </Button>
        )}
      </Stack>
    </Card>
  );
}
