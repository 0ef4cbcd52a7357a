import { ActionIcon, Button, Group, Text } from '@mantine/core';
import { pageWindow } from '@parley/contracts';
import { IconChevronLeft, IconChevronRight, IconChevronsLeft, IconChevronsRight } from '@tabler/icons-react';

/** SHELL-51, SHELL-52: first, previous, a window of 5 pages with ellipses, next, last. Pages are 1-based. */
export function Pager({ page, total, onChange }: { page: number; total: number; onChange(page: number): void }) {
  if (total <= 1) return null;
  const slots = pageWindow(page, total);
  return (
    <Group gap={4} component="nav" aria-label="Pagination" data-testid="pager">
      <ActionIcon variant="default" aria-label="First page" disabled={page <= 1} onClick={() => onChange(1)}>
        <IconChevronsLeft size={16} />
      </ActionIcon>
      <ActionIcon variant="default" aria-label="Previous page" disabled={page <= 1} onClick={() => onChange(page - 1)}>
        <IconChevronLeft size={16} />
      </ActionIcon>
      {slots.map((s, i) =>
        s === 'gap' ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: a gap has no identity but its place
          <Text key={`gap-${i}`} c="dimmed" px={4} aria-hidden>
            …
          </Text>
        ) : (
          <Button
            key={s}
            size="compact-sm"
            variant={s === page ? 'filled' : 'default'}
            aria-current={s === page ? 'page' : undefined}
            aria-label={`Page ${s}`}
            onClick={() => onChange(s)}
          >
            {s}
          </Button>
        ),
      )}
      <ActionIcon variant="default" aria-label="Next page" disabled={page >= total} onClick={() => onChange(page + 1)}>
        <IconChevronRight size={16} />
      </ActionIcon>
      <ActionIcon variant="default" aria-label="Last page" disabled={page >= total} onClick={() => onChange(total)}>
        <IconChevronsRight size={16} />
      </ActionIcon>
    </Group>
  );
}
