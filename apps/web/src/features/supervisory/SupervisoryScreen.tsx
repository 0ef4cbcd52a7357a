import { Badge, Button, Center, Grid, Group, Loader, Stack, Title } from '@mantine/core';
import { canViewReports, SUPERVISORY_STRINGS as S } from '@parley/contracts';
import { IconEye } from '@tabler/icons-react';
import { useSession } from '../../lib/session';
import { EmptyScreen } from '../../ui/EmptyScreen';
import { AgentsCard } from './AgentsCard';
import { QueueCard } from './QueueCard';
import { RisksCard } from './RisksCard';
import { useServerNow, useSupervisoryBoard } from './useSupervisoryBoard';

/**
 * The supervisory board at `/supervisory` (admins and users with view_report): the agents, the live-chat
 * queue and the tickets at SLA risk, kept live over the socket (see `useSupervisoryBoard`).
 */
export function SupervisoryScreen() {
  const { state } = useSession();
  const session = state.phase === 'signedIn' ? state.session : null;
  const allowed = session !== null && canViewReports(session);
  const { query, connected } = useSupervisoryBoard(allowed);
  const now = useServerNow(query.data?.skew ?? 0);

  if (session && !allowed) return <EmptyScreen icon={IconEye} title={S.title} text={S.notAllowed} />;
  if (query.isError && !query.data)
    return (
      <EmptyScreen icon={IconEye} title={S.title} text={S.failed}>
        <Button variant="light" mt="sm" onClick={() => void query.refetch()}>
          {S.retry}
        </Button>
      </EmptyScreen>
    );
  const data = query.data;

  return (
    <Stack gap="md" data-testid="supervisory">
      <Group justify="space-between" align="center">
        <Title order={1} size="h2">
          {S.title}
        </Title>
        <Badge
          color={connected ? 'green' : 'gray'}
          variant="dot"
          tt="none"
          size="lg"
          data-testid="sup-live"
          aria-live="polite"
        >
          {connected ? S.live : S.offline}
        </Badge>
      </Group>
      {!data ? (
        <Center mih="40dvh">
          <Loader aria-label="Loading" />
        </Center>
      ) : (
        <Grid gap="md" align="flex-start">
          <Grid.Col span={{ base: 12, lg: 8 }}>
            <AgentsCard agents={data.agents} limit={data.chatLimit} now={now} />
          </Grid.Col>
          <Grid.Col span={{ base: 12, lg: 4 }}>
            <QueueCard queue={data.queue} now={now} />
          </Grid.Col>
          <Grid.Col span={12}>
            <RisksCard risks={data.risks} total={data.risksTotal} now={now} />
          </Grid.Col>
        </Grid>
      )}
    </Stack>
  );
}
