import { Container, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { AgentStatus, AuthCheckAnswer, StatusUpdated } from '@parley/contracts';
import { useEffect, useState } from 'react';
import { realtime } from '../../lib/realtime';
import { MyStatusCard } from '../status/MyStatusCard';
import { TeamActivity } from '../status/TeamActivity';

/** The signed-in home: a placeholder until the shell issue fills it, already live over the socket. */
export function HomePage({ session }: { session: AuthCheckAnswer }) {
  const [status, setStatus] = useState<AgentStatus>((session.status as AgentStatus) ?? 'ONLINE');

  // Another tab or device of mine changing my status moves this screen along too.
  useEffect(
    () =>
      realtime.on('statusUpdated', (data) => {
        const e = data as StatusUpdated;
        if (e.userId === session.userId) setStatus(e.status as AgentStatus);
      }),
    [session.userId],
  );

  return (
    <Container size="lg">
      <Stack gap="lg">
        <div>
          <Title order={1} size="h2" data-testid="welcome">
            Welcome, {session.adminName}
          </Title>
          <Text c="dimmed">
            {String(session.settings?.[0]?.company ?? '')} · signed in as {session.adminUsername} ({session.type})
          </Text>
        </div>
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <MyStatusCard current={status} onChanged={setStatus} />
          <TeamActivity />
        </SimpleGrid>
      </Stack>
    </Container>
  );
}
