import {
  Anchor,
  Badge,
  Group,
  Loader,
  Paper,
  Progress,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import {
  CUSTOMER_ANALYSIS_STRINGS as A,
  CUSTOMER_ANALYSIS_DAYS,
  type CustomerAnalysis,
  channelName,
  emotionColor,
} from '@parley/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { listDate } from '../../lib/dates';
import { api, errorText } from '../../lib/http';
import { contactKeys } from '../../lib/queryKeys';
import { Figure } from '../../ui/Figure';

const load = (days: number) =>
  api<{ result: 'success'; data: CustomerAnalysis }>('GET', `/api/customer_analysis?days=${days}`).then((r) => r.data);

/**
 * `/customer_analysis`: who the customers of the last 7, 30 or 90 days were, what they wrote about (the
 * labels of their conversations), how they felt (the emotion reader's counts) and who wrote most.
 */
export function CustomerAnalysisScreen() {
  const [days, setDays] = useState(30);
  const q = useQuery({
    queryKey: contactKeys.analysis(days),
    queryFn: () => load(days),
    placeholderData: keepPreviousData,
    retry: false,
  });
  const a = q.data;
  const topLabel = Math.max(1, ...(a?.labels.map((l) => l.tickets) ?? []));
  const feelings = a?.emotions.reduce((n, e) => n + e.count, 0) ?? 0;
  return (
    <Stack gap="md" data-testid="customer-analysis">
      <Group justify="space-between" wrap="wrap">
        <Title order={1} size="h2">
          {A.title}
        </Title>
        <SegmentedControl
          aria-label={A.period}
          value={String(days)}
          onChange={(v) => setDays(Number(v))}
          data={CUSTOMER_ANALYSIS_DAYS.map((d) => ({ value: String(d), label: A.days(d) }))}
        />
      </Group>
      {q.isPending && <Loader size="sm" aria-label="Loading" />}
      {q.isError && <Text c="red">{errorText(q.error)}</Text>}
      {a && (
        <>
          <SimpleGrid cols={{ base: 2, sm: 5 }} spacing="sm">
            <Figure label={A.customers} value={String(a.figures.customers)} testId="ca-customers" />
            <Figure label={A.newCustomers} value={String(a.figures.new_customers)} testId="ca-new" />
            <Figure label={A.returning} value={String(a.figures.returning)} testId="ca-returning" />
            <Figure label={A.conversations} value={String(a.figures.conversations)} testId="ca-conversations" />
            <Figure
              label={A.csat}
              value={a.figures.csat === null ? A.noRating : `${a.figures.csat.toFixed(1)} / 5`}
              testId="ca-csat"
            />
          </SimpleGrid>
          <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
            <Paper withBorder radius="md" p="md">
              <Stack gap="xs" data-testid="ca-topics">
                <Title order={2} size="h4">
                  {A.topics}
                </Title>
                {a.labels.length === 0 && <Text c="dimmed">{A.noTopics}</Text>}
                {a.labels.map((l) => (
                  <Stack key={l.id} gap={2} data-testid="ca-topic">
                    <Group justify="space-between" wrap="nowrap">
                      <Text size="sm" truncate>
                        {l.name}
                      </Text>
                      <Text size="sm" c="dimmed">
                        {l.tickets}
                      </Text>
                    </Group>
                    <Progress value={(l.tickets / topLabel) * 100} color={l.color} aria-label={l.name} />
                  </Stack>
                ))}
              </Stack>
            </Paper>
            <Paper withBorder radius="md" p="md">
              <Stack gap="xs" data-testid="ca-feelings">
                <Title order={2} size="h4">
                  {A.feelings}
                </Title>
                {a.emotions.length === 0 && <Text c="dimmed">{A.noFeelings}</Text>}
                <Group gap="xs">
                  {a.emotions.map((e) => (
                    <Badge key={e.emotion} color={emotionColor(e.emotion)} variant="light" tt="none" size="lg">
                      {e.emotion} {Math.round((e.count / feelings) * 100)}%
                    </Badge>
                  ))}
                </Group>
              </Stack>
            </Paper>
          </SimpleGrid>
          <Paper withBorder radius="md" p="md">
            <Stack gap="xs">
              <Title order={2} size="h4">
                {A.top}
              </Title>
              {a.customers.length === 0 && <Text c="dimmed">{A.none}</Text>}
              {a.customers.length > 0 && (
                <Table.ScrollContainer minWidth={300}>
                  <Table verticalSpacing={6} highlightOnHover data-testid="ca-customers-table">
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th>{A.customer}</Table.Th>
                        <Table.Th ta="right">{A.conversations}</Table.Th>
                        <Table.Th ta="right">{A.open}</Table.Th>
                        <Table.Th visibleFrom="sm">{A.channels}</Table.Th>
                        <Table.Th visibleFrom="sm">{A.mood}</Table.Th>
                        <Table.Th visibleFrom="xs">{A.last}</Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {a.customers.map((c) => (
                        <Table.Tr key={c.contact_id} data-testid="ca-customer">
                          <Table.Td style={{ overflowWrap: 'anywhere' }}>
                            <Anchor component={Link} to={`/contacts/${c.contact_id}`} size="sm" fw={500}>
                              {c.name}
                            </Anchor>
                          </Table.Td>
                          <Table.Td ta="right">{c.conversations}</Table.Td>
                          <Table.Td ta="right">{c.open}</Table.Td>
                          <Table.Td visibleFrom="sm">
                            <Text size="xs" c="dimmed">
                              {c.channels.map(channelName).join(', ')}
                            </Text>
                          </Table.Td>
                          <Table.Td visibleFrom="sm">
                            {c.emotion && (
                              <Badge color={emotionColor(c.emotion)} variant="light" tt="none" size="sm">
                                {c.emotion}
                              </Badge>
                            )}
                          </Table.Td>
                          <Table.Td visibleFrom="xs" style={{ whiteSpace: 'nowrap' }}>
                            {listDate(c.last_at)}
                          </Table.Td>
                        </Table.Tr>
                      ))}
                    </Table.Tbody>
                  </Table>
                </Table.ScrollContainer>
              )}
            </Stack>
          </Paper>
        </>
      )}
    </Stack>
  );
}
