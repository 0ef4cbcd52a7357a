import { Badge, Button, Card, Container, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { type AuthCheckAnswer, effectiveStatus, STATUS_DURATION_NOTE, statusLabel } from '@parley/contracts';
import { MyQueue } from '../../features/home/MyQueue';
import { useMyStatus } from '../../features/status/presence';
import { colorOf, t } from '../../features/status/strings';
import { TeamActivity } from '../../features/status/TeamActivity';
import { shell } from '../../lib/shellStore';

/** The signed-in home: who I am, my status, and my team's status changes as they happen. */
export function HomePage({ session }: { session: AuthCheckAnswer }) {
  const me = useMyStatus();
  const status = me.data ? effectiveStatus(me.data) : 'ONLINE';
  return (
    <Container size="lg" w="100%">
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
          <Card withBorder radius="md" padding="lg">
            <Stack>
              <Title order={2} size="h4">
                {t.myStatus}
              </Title>
              <Group>
                <Badge size="lg" color={colorOf(status)} variant="dot" tt="none" data-testid="home-status">
                  {statusLabel(status)}
                </Badge>
                {me.data?.reason && status !== 'ONLINE' && <Text size="sm">{me.data.reason}</Text>}
              </Group>
              <Text size="xs" c="dimmed">
                {STATUS_DURATION_NOTE}
              </Text>
              <Button variant="light" w="fit-content" onClick={() => shell.set({ myStatusOpen: true })}>
                Change status
              </Button>
            </Stack>
          </Card>
          <MyQueue />
          <TeamActivity />
        </SimpleGrid>
      </Stack>
    </Container>
  );
}
