import { Center, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import type { ComponentType, ReactNode } from 'react';

/** A screen with nothing in it yet: says what will be here and how it gets there. */
export function EmptyScreen({
  title,
  text,
  icon: Icon,
  children,
}: {
  title: string;
  text: string;
  icon?: ComponentType<{ size?: number; stroke?: number }>;
  /** An action under the text (a link button). */
  children?: ReactNode;
}) {
  return (
    <Center mih="60dvh">
      <Stack align="center" gap="xs" maw={440} ta="center" data-testid="empty-screen">
        {Icon && (
          <ThemeIcon size={56} radius="xl" variant="light">
            <Icon size={30} stroke={1.5} />
          </ThemeIcon>
        )}
        <Title order={1} size="h3">
          {title}
        </Title>
        <Text c="dimmed">{text}</Text>
        {children}
      </Stack>
    </Center>
  );
}
