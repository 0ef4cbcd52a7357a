import { Badge, Button, Card, Group, Modal, Stack, Table, Text, Title } from '@mantine/core';
import { PAYMENT_HISTORY_PAGE, type PaymentHistoryItem, PLAN_NAMES, taxPercent } from '@parley/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { formatDateTime } from '../../lib/dates';
import { billingKeys } from '../../lib/queryKeys';
import { Pager } from '../../ui/Pagination';
import { billingApi } from './api';
import { PAYMENT_HISTORY as H } from './strings';

const STATUS_COLOR = { SUCCESS: 'green', FAILED: 'red', PENDING: 'gray', CHANGED: 'blue', REFUNDED: 'orange' } as const;

/**
 * Admins: the account's payments, newest first, 20 a page, each with what was bought, the total and how it
 * ended (a failed one with the provider's words); a paid one opens its receipt.
 */
export function PaymentHistory() {
  const [page, setPage] = useState(1);
  const [receipt, setReceipt] = useState<PaymentHistoryItem | null>(null);
  const q = useQuery({
    queryKey: billingKeys.history(page),
    queryFn: () => billingApi.history(page - 1),
    placeholderData: keepPreviousData,
  });
  const rows = q.data?.data ?? [];
  const pages = Math.max(1, Math.ceil((q.data?.total ?? 0) / PAYMENT_HISTORY_PAGE));
  return (
    <Card withBorder radius="md" padding="lg" data-testid="payment-history">
      <Stack>
        <Title order={3} size="h4">
          {H.title}
        </Title>
        {q.data && rows.length === 0 && <Text c="dimmed">{H.none}</Text>}
        {rows.length > 0 && (
          <Table.ScrollContainer minWidth={560}>
            <Table verticalSpacing={4}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{H.when}</Table.Th>
                  <Table.Th>{H.plan}</Table.Th>
                  <Table.Th>{H.users}</Table.Th>
                  <Table.Th>{H.total}</Table.Th>
                  <Table.Th>{H.status}</Table.Th>
                  <Table.Th>{H.by}</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((p) => (
                  <Table.Tr key={p.ref} data-testid="payment-row">
                    <Table.Td>{formatDateTime(p.created_at)}</Table.Td>
                    <Table.Td>{PLAN_NAMES[p.plan] ?? String(p.plan)}</Table.Td>
                    <Table.Td>{p.quantity}</Table.Td>
                    <Table.Td>
                      {p.currency} {p.total}
                    </Table.Td>
                    <Table.Td>
                      <Badge variant="light" color={STATUS_COLOR[p.status]}>
                        {H.statuses[p.status]}
                      </Badge>
                      {(p.status === 'FAILED' || p.status === 'CHANGED') && p.payment_desc && (
                        <Text size="xs" c="dimmed">
                          {p.payment_desc}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>{p.by}</Table.Td>
                    <Table.Td>
                      {p.status === 'SUCCESS' && (
                        <Button size="compact-sm" variant="default" onClick={() => setReceipt(p)}>
                          {H.receipt}
                        </Button>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        <Group justify="center">
          <Pager page={Math.min(page, pages)} total={pages} onChange={setPage} />
        </Group>
      </Stack>
      <Modal opened={receipt !== null} onClose={() => setReceipt(null)} title={H.receiptTitle} centered>
        {receipt && <Receipt p={receipt} onClose={() => setReceipt(null)} />}
      </Modal>
    </Card>
  );
}

/** A paid payment's receipt: what was bought at what price, the tax and the total; printable. */
function Receipt({ p, onClose }: { p: PaymentHistoryItem; onClose(): void }) {
  const lines: [string, string][] = [
    [H.number, p.ref],
    [H.paidOn, p.settled_at ? formatDateTime(p.settled_at) : ''],
    [H.plan, PLAN_NAMES[p.plan] ?? String(p.plan)],
    [H.users, String(p.quantity)],
    [H.unitPrice, `${p.currency} ${p.price}`],
    [H.tax, `${taxPercent(p.tax)}%`],
    [H.total, `${p.currency} ${p.total}`],
  ];
  return (
    <Stack data-testid="payment-receipt">
      <Table>
        <Table.Tbody>
          {lines.map(([k, v]) => (
            <Table.Tr key={k}>
              <Table.Th scope="row">{k}</Table.Th>
              <Table.Td>{v}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Group justify="flex-end">
        <Button variant="default" onClick={() => window.print()}>
          {H.print}
        </Button>
        <Button onClick={onClose}>{H.close}</Button>
      </Group>
    </Stack>
  );
}
