import { Anchor, Center, Paper, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Logo } from './Logo';

/** The centred card every signed-out screen uses. */
export function AuthLayout({
  title,
  subtitle,
  children,
  footer,
}: {
  title: string;
  subtitle: string;
  children: ReactNode;
  footer?: ReactNode;
}) {
  return (
    <Center mih="100dvh" p="md" bg="var(--mantine-color-body)">
      <Stack w="100%" maw={420} gap="lg">
        <Logo />
        <Paper withBorder shadow="sm" radius="md" p="xl">
          <Stack gap={4} mb="lg">
            <Title order={2} size="h3">
              {title}
            </Title>
            <Text c="dimmed" size="sm">
              {subtitle}
            </Text>
          </Stack>
          {children}
        </Paper>
        {footer && (
          <Stack gap={4} align="center">
            {footer}
          </Stack>
        )}
      </Stack>
    </Center>
  );
}

export function AuthLink({ to, text }: { to: string; text: string }) {
  return (
    <Anchor component={Link} to={to} size="sm">
      {text}
    </Anchor>
  );
}
