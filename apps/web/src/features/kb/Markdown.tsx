import { Anchor, Blockquote, Box, Code, Divider, Image, List, Text, Title } from '@mantine/core';
import { type MdBlock, type MdInline, parseMarkdown } from '@parley/contracts';
import { Fragment, type ReactNode, useMemo } from 'react';

/** A parsed tree's nodes have no identity but their place, and never move: the place is their key. */
function keyed<T>(items: T[], render: (item: T) => ReactNode): ReactNode {
  // biome-ignore lint/suspicious/noArrayIndexKey: see above
  return items.map((item, i) => <Fragment key={i}>{render(item)}</Fragment>);
}

interface Props {
  source: string;
  /**
   * Where `/files/...` images are read from: the signed-in download by default; the public pages pass their
   * token's address (`/api/public/kb/<token>/files/`), which serves only images of published articles.
   */
  filesBase?: string;
}

/**
 * An article's Markdown as React elements. Nothing is set as HTML: a `<script>` in an article is shown as
 * the text it is, and links and images keep only http(s), mailto and this site's paths (contracts' safeUrl).
 */
export function Markdown({ source, filesBase }: Props) {
  const blocks = useMemo(() => parseMarkdown(source), [source]);
  const src = (s: string) => (filesBase && s.startsWith('/files/') ? `${filesBase}${s.slice('/files/'.length)}` : s);
  const inline = (nodes: MdInline[]): ReactNode => keyed(nodes, inlineNode);
  const inlineNode = (n: MdInline): ReactNode => {
    switch (n.t) {
      case 'text':
        return n.text;
      case 'strong':
        return <strong>{inline(n.children)}</strong>;
      case 'em':
        return <em>{inline(n.children)}</em>;
      case 'code':
        return <Code>{n.text}</Code>;
      case 'link': {
        const external = /^https?:/i.test(n.href);
        return (
          <Anchor href={n.href} {...(external ? { target: '_blank', rel: 'noopener noreferrer nofollow' } : {})}>
            {inline(n.children)}
          </Anchor>
        );
      }
      case 'image':
        return <Image src={src(n.src)} alt={n.alt} maw="100%" w="auto" radius="sm" my="xs" />;
    }
  };
  const block = (b: MdBlock): ReactNode => {
    switch (b.t) {
      case 'heading':
        // The page's own title is the h1: an article's headings start one level below it.
        return (
          <Title order={Math.min(6, b.level + 1) as 2} mt="md" mb="xs">
            {inline(b.children)}
          </Title>
        );
      case 'paragraph':
        return <Text mb="sm">{inline(b.children)}</Text>;
      case 'list':
        return (
          <List type={b.ordered ? 'ordered' : 'unordered'} mb="sm" withPadding>
            {keyed(b.items, (item) => (
              <List.Item>{inline(item)}</List.Item>
            ))}
          </List>
        );
      case 'quote':
        return (
          <Blockquote mb="sm" p="sm">
            {keyed(b.children, block)}
          </Blockquote>
        );
      case 'code':
        return (
          <Code block mb="sm">
            {b.text}
          </Code>
        );
      case 'rule':
        return <Divider my="md" />;
    }
  };
  return <Box data-testid="kb-markdown">{keyed(blocks, block)}</Box>;
}
