import { Card, Group, Stack, Table, Text, Title } from '@mantine/core';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { formatDateTime } from '../../lib/dates';
import { useDisplayName } from '../../lib/people';
import { settingsKeys } from '../../lib/queryKeys';
import { Pager } from '../../ui/Pagination';
import { AUDIT_PAGE, settingsApi } from './api';
import { auditDetails, auditSentence } from './auditWords';
import { t } from './strings';

/** Admin: the account's audit log, newest first, in numbered pages of 25 (SHELL-51 the pager). */
export function AuditLog() {
  const [page, setPage] = useState(1);
  const displayName = useDisplayName();
  const q = useQuery({
    queryKey: settingsKeys.audit(page),
    queryFn: () => settingsApi.audit(page),
    placeholderData: keepPreviousData,
  });
  const rows = q.data?.data ?? [];
  const pages = Math.max(1, Math.ceil((q.data?.count ?? 0) / AUDIT_PAGE));
  return (
    <Card withBorder radius="md" padding="lg">
      <Stack>
        <Group justify="space-between">
          <Title order={3} size="h4">
            {t.audit}
          </Title>
          {q.data && (
            <Text size="sm" c="dimmed" data-testid="audit-total">
              {t.auditTotal(q.data.count ?? 0)}
            </Text>
          )}
        </Group>
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
                  {/* The date as D/M/YYYY, then the time with seconds. */}
                  <Table.Td>{formatDateTime(r.created_at, { seconds: true })}</Table.Td>
                  <Table.Td>{r.actor ? displayName(r.actor) : ''}</Table.Td>
                  <Table.Td data-action={r.action}>{auditSentence(r, r.actor ? displayName(r.actor) : '')}</Table.Td>
                  <Table.Td>
                    <Text size="xs" c="dimmed" lineClamp={2}>
                      {auditDetails(r.detail)}
                    </Text>
                  </Table.Td>
                  <Table.Td>{r.ip}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        <Group justify="center">
          <Pager page={Math.min(page, pages)} total={pages} onChange={setPage} />
        </Group>
      </Stack>
    </Card>
  );
}
