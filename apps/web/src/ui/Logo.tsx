import { Group, Text, ThemeIcon } from '@mantine/core';

export function Logo({ title = 'Parley' }: { title?: string }) {
  return (
    <Group gap="xs" justify="center">
      <ThemeIcon size="lg" radius="md" variant="filled" aria-hidden>
        <svg width="18" height="18" viewBox="0 0 32 32" role="presentation">
          <path d="M4 6h24v15H13l-7 6v-6H4z" fill="currentColor" />
        </svg>
      </ThemeIcon>
      <Text fw={700} size="xl">
        {title}
      </Text>
    </Group>
  );
}
