import { Avatar, Badge, Box, Group, Paper, Progress, Stack, Table, Text, Title } from '@mantine/core';
import { SUPERVISORY_STRINGS as S, type SupervisoryAgent, statusLabel } from '@parley/contracts';
import { elapsed } from '../../lib/dates';
import { colorOf } from '../../lib/statusColor';

/** Red text that stays readable on either scheme's background. */
const RED_TEXT = 'light-dark(var(--mantine-color-red-9), var(--mantine-color-red-4))';

/** Digits of equal width, so a ticking duration does not jiggle. */
const TABULAR = { fontVariantNumeric: 'tabular-nums' } as const;

function StatusBadge({ a }: { a: SupervisoryAgent }) {
  return (
    <Group gap={6} wrap="nowrap" miw={0}>
      <Badge color={colorOf(a.status)} variant="dot" tt="none" size="md" style={{ flexShrink: 0 }}>
        {statusLabel(a.status)}
      </Badge>
      {a.reason && (
        <Text size="xs" c="dimmed" truncate title={a.reason}>
          {a.reason}
        </Text>
      )}
    </Group>
  );
}

/** "3 / 10" and a bar filling towards the plan's limit (red at it); "3" and "no limit" without one. */
function ChatLoad({ chats, limit }: { chats: number; limit: number | null }) {
  if (limit === null)
    return (
      <Text size="sm">
        {chats}{' '}
        <Text span size="xs" c="dimmed">
          ({S.unlimited})
        </Text>
      </Text>
    );
  const full = limit > 0 && chats >= limit;
  const share = limit > 0 ? Math.min(100, (chats / limit) * 100) : 100;
  return (
    <Stack gap={4} w={96}>
      <Text size="sm" fw={full ? 700 : undefined} c={full ? RED_TEXT : undefined} title={full ? S.atLimit : undefined}>
        {chats} / {limit}
      </Text>
      <Progress
        value={share}
        size="sm"
        color={full ? 'red' : share >= 70 ? 'orange' : 'teal'}
        aria-label={`${S.chats}: ${chats} / ${limit}`}
      />
    </Stack>
  );
}

function Who({ a }: { a: SupervisoryAgent }) {
  return (
    <Group gap="sm" wrap="nowrap" miw={0}>
      <Avatar src={a.photo} name={a.name} color="indigo" variant="filled" size={32} radius="xl" />
      <Box miw={0}>
        <Text size="sm" fw={600} truncate>
          {a.name}
        </Text>
        <Text size="xs" c="dimmed" truncate>
          {a.username}
        </Text>
      </Box>
    </Group>
  );
}

/** Each agent: status and for how long, running live chats against the plan's limit, open tickets. */
export function AgentsCard({ agents, limit, now }: { agents: SupervisoryAgent[]; limit: number | null; now: number }) {
  const present = agents.filter((a) => a.status !== 'OFFLINE').length;
  return (
    <Paper withBorder radius="md" p="md" data-testid="sup-agents">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">
          {S.agents}
        </Title>
        <Text size="sm" c="dimmed">
          {S.present(present, agents.length)}
        </Text>
      </Group>
      {agents.length === 0 ? (
        <Text c="dimmed">{S.noAgents}</Text>
      ) : (
        <>
          <Table visibleFrom="sm" verticalSpacing="xs" highlightOnHover>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{S.agent}</Table.Th>
                <Table.Th>{S.status}</Table.Th>
                <Table.Th>{S.inStatus}</Table.Th>
                <Table.Th>{S.chats}</Table.Th>
                <Table.Th ta="right">{S.tickets}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {agents.map((a) => (
                <Table.Tr key={a.userId} data-testid={`sup-agent-${a.username}`} data-status={a.status}>
                  <Table.Td maw={240}>
                    <Who a={a} />
                  </Table.Td>
                  <Table.Td maw={260}>
                    <StatusBadge a={a} />
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" style={TABULAR}>
                      {elapsed(a.since, now)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <ChatLoad chats={a.chats} limit={limit} />
                  </Table.Td>
                  <Table.Td ta="right">
                    <Text size="sm" fw={600}>
                      {a.tickets}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <Stack hiddenFrom="sm" gap="xs">
            {agents.map((a) => (
              <Paper
                key={a.userId}
                withBorder
                radius="sm"
                p="sm"
                data-testid={`sup-agent-card-${a.username}`}
                data-status={a.status}
              >
                <Group justify="space-between" wrap="nowrap" gap="xs">
                  <Who a={a} />
                  <Text size="sm" style={{ ...TABULAR, flexShrink: 0 }}>
                    {elapsed(a.since, now)}
                  </Text>
                </Group>
                <Box mt={6}>
                  <StatusBadge a={a} />
                </Box>
                <Group justify="space-between" mt="xs" align="flex-end">
                  <Box>
                    <Text size="xs" c="dimmed">
                      {S.chats}
                    </Text>
                    <ChatLoad chats={a.chats} limit={limit} />
                  </Box>
                  <Box ta="right">
                    <Text size="xs" c="dimmed">
                      {S.tickets}
                    </Text>
                    <Text size="sm" fw={600}>
                      {a.tickets}
                    </Text>
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
