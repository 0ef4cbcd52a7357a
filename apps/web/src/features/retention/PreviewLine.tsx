import { Text } from '@mantine/core';
import { RETENTION_STRINGS as R, type RetentionPreviewItem } from '@parley/contracts';

/** How many items a rule removes on the next run, and the first ticket numbers among them. */
export function PreviewLine({ item }: { item: RetentionPreviewItem }) {
  if (item.count === 0)
    return (
      <Text size="sm" data-testid="retention-preview-count">
        {R.nothing}
      </Text>
    );
  return (
    <Text size="sm" data-testid="retention-preview-count">
      <b>{item.count}</b>
      {item.ticketNumbers.length > 0 && (
        <>
          {' · '}
          {R.tickets} {item.ticketNumbers.map((n) => `#${n}`).join(', ')}
          {item.count > item.ticketNumbers.length ? ', …' : ''}
        </>
      )}
    </Text>
  );
}
