import { Button, Center, Group, Stack, Text, Title } from '@mantine/core';
import { useSignOut } from '../../lib/session';

/** AUTH-24: after more than 5 failed checks. Reload, or Log Out. */
export function NetworkErrorPage() {
  const signOut = useSignOut();
  return (
    <Center mih="100dvh" p="md">
      <Stack align="center" gap="sm" maw={420}>
        <Title order={1} size="h2">
          Network error
        </Title>
        <Text c="dimmed" ta="center">
          Parley cannot reach its server. Check your connection, then reload the page.
        </Text>
        <Group mt="md">
          <Button onClick={() => window.location.reload()}>Reload</Button>
          <Button variant="default" onClick={signOut}>
            Log Out
          </Button>
        </Group>
      </Stack>
    </Center>
  );
}
