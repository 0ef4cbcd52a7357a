import { Badge, Group, Paper, ScrollArea, Stack, Text, UnstyledButton } from '@mantine/core';
import { type CannedReply, fillReplyVariables, replyValues } from '@parley/contracts';
import { useQuery } from '@tanstack/react-query';
import { type KeyboardEvent, type ReactNode, type RefObject, useEffect, useMemo, useState } from 'react';
import { replyKeys } from '../../lib/queryKeys';
import { repliesApi } from './api';
import { insertAt, matchReplies, slashQuery } from './slash';
import { R } from './strings';

/** What the picker fills variables from: the open ticket. */
export interface ReplyTicket {
  ticket_number: number;
  title: string;
  name: string;
  email: string;
  channel: string;
}

interface Options {
  text: string;
  setText(text: string): void;
  /** The open ticket; without it (still loading) the picker stays closed. */
  ticket: ReplyTicket | undefined;
  agent: { name: string; username: string };
  input: RefObject<HTMLTextAreaElement | null>;
}

/**
 * The composer's canned replies: typing `/` at the start of a word opens a list of the replies offered on the
 * ticket's channel, searched by what follows the slash. Up/Down move, Enter or Tab (or a click) insert the
 * reply with its variables filled from the ticket and the signed-in agent, Esc closes it. Enter or Tab pressed
 * while the list is still loading is kept, not passed on (in the chat composer Enter would send the `/word`
 * as a message): the best match is inserted once the list comes, if the `/word` is still the one typed. The
 * composer passes its key presses to `onKeyDown` first (true: the picker used it) and its caret moves to
 * `onCaret`.
 */
export function useCannedReplyPicker({ text, setText, ticket, agent, input }: Options): {
  picker: ReactNode;
  onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>): boolean;
  onCaret(caret: number): void;
} {
  const [caret, setCaret] = useState(0);
  // The highlighted option, for the query it was chosen under (a new query starts at the top).
  const [chosen, setChosen] = useState({ query: '', index: 0 });
  const [dismissed, setDismissed] = useState<number | null>(null);
  // The `/word` an Enter or Tab was pressed on while the list was loading: picked when it comes.
  const [waiting, setWaiting] = useState<{ start: number; query: string } | null>(null);
  const slash = ticket ? slashQuery(text, caret) : null;
  const open = slash !== null && dismissed !== slash.start;
  const channel = ticket?.channel ?? '';
  const list = useQuery({
    queryKey: replyKeys.canned(channel),
    queryFn: () => repliesApi.canned(channel),
    enabled: open,
    staleTime: 30_000,
  });
  const matches = useMemo(
    () => (open && list.data ? matchReplies(list.data, slash?.query ?? '') : []),
    [open, list.data, slash?.query],
  );
  const active = chosen.query === (slash?.query ?? '') ? chosen.index : 0;
  const setActive = (f: (i: number) => number) => setChosen({ query: slash?.query ?? '', index: f(active) });
  const noSlash = slash === null;
  useEffect(() => {
    if (noSlash) setDismissed(null);
  }, [noSlash]);

  const pick = (r: CannedReply) => {
    if (!slash || !ticket) return;
    const filled = fillReplyVariables(r.body, replyValues(ticket, agent));
    const next = insertAt(text, slash.start, caret, filled);
    setText(next.text);
    setCaret(next.caret);
    requestAnimationFrame(() => {
      const el = input.current;
      if (!el) return;
      el.focus();
      el.setSelectionRange(next.caret, next.caret);
    });
  };

  // The list came after an Enter or Tab: the best match goes in, if the same `/word` is still being typed.
  const loaded = !list.isPending;
  // biome-ignore lint/correctness/useExhaustiveDependencies: only when the list comes; `pick` reads this render's text.
  useEffect(() => {
    if (!waiting || !loaded) return;
    setWaiting(null);
    const first = matches[0];
    if (first && slash?.start === waiting.start && slash.query === waiting.query) pick(first);
  }, [waiting, loaded]);

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (!open || !slash) return false;
    if (e.key === 'Escape') {
      setDismissed(slash.start);
      setWaiting(null);
      e.preventDefault();
      return true;
    }
    const choose = (e.key === 'Enter' && !e.shiftKey) || e.key === 'Tab';
    if (choose && list.isPending) {
      setWaiting({ start: slash.start, query: slash.query });
      e.preventDefault();
      return true;
    }
    if (matches.length === 0) return false;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      const step = e.key === 'ArrowDown' ? 1 : -1;
      setActive((i) => (i + step + matches.length) % matches.length);
      e.preventDefault();
      return true;
    }
    if (choose) {
      pick(matches[Math.min(active, matches.length - 1)]!);
      e.preventDefault();
      return true;
    }
    return false;
  };

  const picker = open ? (
    <Paper withBorder shadow="sm" p={4} data-testid="canned-picker" role="listbox" aria-label={R.cannedTitle}>
      <Group justify="space-between" px={6} py={2} wrap="nowrap">
        <Text size="xs" fw={600} c="dimmed">
          {R.cannedTitle}
          {slash?.query ? ` · /${slash.query}` : ''}
        </Text>
        <Text size="xs" c="dimmed" visibleFrom="sm">
          {R.pickerHint}
        </Text>
      </Group>
      {matches.length === 0 ? (
        <Text size="sm" c="dimmed" px={6} py={6}>
          {list.isPending ? '…' : R.pickerEmpty}
        </Text>
      ) : (
        <ScrollArea.Autosize mah={240}>
          <Stack gap={0}>
            {matches.map((r, i) => (
              <UnstyledButton
                key={r.id}
                role="option"
                aria-selected={i === active}
                data-testid="canned-option"
                onMouseDown={(e) => e.preventDefault()}
                onMouseEnter={() => setActive(() => i)}
                onClick={() => pick(r)}
                px={6}
                py={4}
                style={{
                  borderRadius: 4,
                  background: i === active ? 'var(--mantine-color-default-hover)' : undefined,
                }}
              >
                <Group gap={6} wrap="nowrap">
                  <Text size="sm" fw={600} ff="monospace">
                    /{r.shortcut}
                  </Text>
                  <Text size="sm" truncate style={{ flex: 1 }}>
                    {r.title}
                  </Text>
                  {r.shared && (
                    <Badge size="xs" variant="light">
                      {R.sharedBadge}
                    </Badge>
                  )}
                </Group>
                <Text size="xs" c="dimmed" lineClamp={1}>
                  {r.body}
                </Text>
              </UnstyledButton>
            ))}
          </Stack>
        </ScrollArea.Autosize>
      )}
    </Paper>
  ) : null;

  return { picker, onKeyDown, onCaret: setCaret };
}
