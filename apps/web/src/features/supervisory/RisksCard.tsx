import { Anchor, Badge, Box, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { SUPERVISORY_STRINGS as S, type SupervisoryRisk } from '@parley/contracts';
import { Link } from 'react-router';
import { formatDateTime, formatTime, timeLeft } from '../../lib/dates';

/** Red text that stays readable on either scheme's background. */
const RED_TEXT = 'light-dark(var(--mantine-color-red-9), var(--mantine-color-red-4))';

/** Breached once its due time has passed, on this browser's view of the server's clock too. */
const isBreached = (r: SupervisoryRisk, now: number) => r.breached || r.dueAt <= now;

function State({ r, now }: { r: SupervisoryRisk; now: number }) {
  const breached = isBreached(r, now);
  return (
    <Badge color={breached ? 'red.9' : 'orange.4'} autoContrast tt="none">
      {breached ? S.breached : S.atRisk}
    </Badge>
  );
}

/** The due time (the time today, the day and time otherwise) and how far it is. */
function Due({ r, now }: { r: SupervisoryRisk; now: number }) {
  const sameDay = new Date(r.dueAt).toDateString() === new Date(now).toDateString();
  return (
    <Box>
      <Text size="sm">{sameDay ? formatTime(r.dueAt) : formatDateTime(r.dueAt)}</Text>
      <Text size="xs" c={isBreached(r, now) ? RED_TEXT : 'dimmed'}>
        {timeLeft(r.dueAt, now)}
      </Text>
    </Box>
  );
}

const assigneeText = (r: SupervisoryRisk) => (r.assignees.length > 0 ? r.assignees.join(', ') : S.unassigned);
const targetText = (r: SupervisoryRisk) => (r.target === 'response' ? S.response : S.resolution);

/** Tickets whose SLA clock is warned, due within the window or breached, due soonest first. */
export function RisksCard({ risks, total, now }: { risks: SupervisoryRisk[]; total: number; now: number }) {
  return (
    <Paper withBorder radius="md" p="md" data-testid="sup-risks">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">
          {S.risks}
        </Title>
        {total > risks.length && (
          <Text size="sm" c="dimmed">
            {S.more(risks.length, total)}
          </Text>
        )}
      </Group>
      {risks.length === 0 ? (
        <Text c="dimmed" size="sm">
          {S.noRisks}
        </Text>
      ) : (
        <>
          <Table visibleFrom="sm" verticalSpacing="xs" highlightOnHover>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{S.ticket}</Table.Th>
                <Table.Th>{S.title_}</Table.Th>
                <Table.Th>{S.assignee}</Table.Th>
                <Table.Th>{S.due}</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {risks.map((r) => (
                <Table.Tr key={r.id} data-testid={`sup-risk-${r.ticketNumber}`}>
                  <Table.Td>
                    <Anchor component={Link} to={`/ticket/${r.id}`} size="sm" fw={600}>
                      #{r.ticketNumber}
                    </Anchor>
                  </Table.Td>
                  <Table.Td maw={360}>
                    <Text size="sm" truncate title={r.title}>
                      {r.title}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {targetText(r)}
                    </Text>
                  </Table.Td>
                  <Table.Td maw={220}>
                    <Text size="sm" truncate c={r.assignees.length ? undefined : 'dimmed'}>
                      {assigneeText(r)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Due r={r} now={now} />
                  </Table.Td>
                  <Table.Td ta="right">
                    <State r={r} now={now} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <Stack hiddenFrom="sm" gap="xs">
            {risks.map((r) => (
              <Paper key={r.id} withBorder radius="sm" p="sm" data-testid={`sup-risk-card-${r.ticketNumber}`}>
                <Group justify="space-between" wrap="nowrap" gap="xs">
                  <Anchor component={Link} to={`/ticket/${r.id}`} size="sm" fw={600}>
                    #{r.ticketNumber}
                  </Anchor>
                  <State r={r} now={now} />
                </Group>
                <Text size="sm" mt={4} lineClamp={2}>
                  {r.title}
                </Text>
                <Group justify="space-between" mt="xs" align="flex-end" wrap="nowrap">
                  <Box miw={0}>
                    <Text size="xs" c="dimmed">
                      {targetText(r)} · {assigneeText(r)}
                    </Text>
                  </Box>
                  <Box ta="right" style={{ flexShrink: 0 }}>
                    <Due r={r} now={now} />
                  </Box>
                </Group>
              </Paper>
            ))}
          </Stack>
        </>
      )}
    </Paper>
  );
}
