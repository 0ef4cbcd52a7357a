import { Text } from '@mantine/core';
import { snippetParts } from '../lib/snippet';

/** A search snippet (escaped HTML with only `<mark>` added) as text with its matches marked; never set as HTML. */
export function Snippet({ html, lines = 2 }: { html: string; lines?: number }) {
  return (
    <Text size="sm" lineClamp={lines}>
      {snippetParts(html).map((p, i) =>
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one snippet have no identity but their place
        p.marked ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>,
      )}
    </Text>
  );
}
