import { Button, Center, Stack, Text, Title } from '@mantine/core';
import { SHELL_STRINGS } from '@parley/contracts';
import { Link } from 'react-router';

/** SHELL-17: unknown signed-in paths. */
export function NotFoundPage() {
  return (
    <Center mih="60dvh">
      <Stack align="center" gap="xs">
        <Title order={1}>{SHELL_STRINGS.notFoundTitle}</Title>
        <Text c="dimmed">{SHELL_STRINGS.notFoundBody}</Text>
        <Button component={Link} to="/" variant="light" mt="md">
          Go home
        </Button>
      </Stack>
    </Center>
  );
}
