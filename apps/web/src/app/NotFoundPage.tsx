import { Button, Center, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';

/** SHELL: unknown paths. */
export function NotFoundPage() {
  return (
    <Center mih="100dvh">
      <Stack align="center" gap="xs">
        <Title order={1}>Error 404</Title>
        <Text c="dimmed">The page you have requested was not found.</Text>
        <Button component={Link} to="/" variant="light" mt="md">
          Go home
        </Button>
      </Stack>
    </Center>
  );
}
