import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Chip,
  Group,
  Loader,
  Modal,
  Stack,
  Text,
  TextInput,
  Title,
  Tooltip,
  UnstyledButton,
} from '@mantine/core';
import { useHotkeys } from '@mantine/hooks';
import { channelName, SEARCH_CHIPS, SEARCH_PAGE_SIZE, type SearchAnswer } from '@parley/contracts';
import { IconSearch } from '@tabler/icons-react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type ReactNode, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { conversationPath } from '../../lib/conversationPath';
import { errorText } from '../../lib/http';
import { searchKeys } from '../../lib/queryKeys';
import { createStore, useStore } from '../../lib/store';
import { Snippet } from '../../ui/Snippet';
import { searchApi } from './api';
import { T } from './strings';

/** Whether the modal is open: UI state of this feature alone. */
const openStore = createStore(false);
const openSearch = () => openStore.set(true);

/** Ctrl+K (Cmd+K on a Mac) opens the search from anywhere, the composer and other fields included. */
export function useSearchShortcut() {
  useHotkeys([['mod+K', openSearch]], [], true);
}

/** The shell's entry: a search icon that opens the modal. */
export function SearchButton() {
  return (
    <Tooltip label={T.open} withArrow>
      <ActionIcon variant="subtle" color="gray" aria-label={T.title} onClick={openSearch} data-testid="search-open">
        <IconSearch size={18} />
      </ActionIcon>
    </Tooltip>
  );
}

function Group_({
  title,
  count,
  capped,
  page,
  onPage,
  children,
}: {
  title: string;
  count?: number;
  /** More matched than are ranked: the count reads "1000+". */
  capped?: boolean;
  page?: number;
  onPage?: (page: number) => void;
  children: ReactNode;
}) {
  const pages = count !== undefined ? Math.ceil(count / SEARCH_PAGE_SIZE) : 0;
  return (
    <Stack gap={4} component="section" aria-label={title} data-testid={`search-group-${title}`}>
      <Group justify="space-between">
        <Title order={6} c="dimmed" tt="uppercase">
          {title}
          {count !== undefined && ` (${count}${capped ? '+' : ''})`}
        </Title>
        {onPage && page !== undefined && pages > 1 && (
          <Group gap={4}>
            <Button size="compact-xs" variant="default" disabled={page <= 0} onClick={() => onPage(page - 1)}>
              ‹
            </Button>
            <Text size="xs">{T.page(page + 1, pages)}</Text>
            <Button size="compact-xs" variant="default" disabled={page + 1 >= pages} onClick={() => onPage(page + 1)}>
              ›
            </Button>
          </Group>
        )}
      </Group>
      {children}
    </Stack>
  );
}

function Hit({ onClick, children, testId }: { onClick(): void; children: ReactNode; testId: string }) {
  return (
    <UnstyledButton
      onClick={onClick}
      data-testid={testId}
      p={6}
      style={{ display: 'block', width: '100%', textAlign: 'left', borderRadius: 'var(--mantine-radius-sm)' }}
    >
      {children}
    </UnstyledButton>
  );
}

/** SEARCH-01..05: the box with chips or Clear/Enter, and the grouped results of the last Enter. */
export function SearchModal() {
  const opened = useStore(openStore);
  const navigate = useNavigate();
  const input = useRef<HTMLInputElement>(null);
  const [text, setText] = useState('');
  const [submitted, setSubmitted] = useState('');
  const [page, setPage] = useState(0);
  const [messagePage, setMessagePage] = useState(0);
  const results = useQuery({
    queryKey: searchKeys.results(submitted, page, messagePage),
    queryFn: () => searchApi.data(submitted, page, messagePage),
    enabled: opened && submitted.trim() !== '',
    placeholderData: keepPreviousData,
    retry: false,
  });
  const close = () => openStore.set(false);
  const run = (value = text) => {
    setSubmitted(value.trim());
    setPage(0);
    setMessagePage(0);
  };
  const clear = () => {
    setText('');
    setSubmitted('');
    input.current?.focus();
  };
  const insert = (key: string) => {
    const next = `${text}${text && !text.endsWith(' ') ? ' ' : ''}${key}:`;
    setText(next);
    input.current?.focus();
  };
  const open = (path: string) => {
    close();
    navigate(path);
  };
  const refine = (token: string) => {
    const next = `${text.trim()} ${token}`.trim();
    setText(next);
    run(next);
  };
  const data: SearchAnswer | undefined = submitted ? results.data : undefined;
  const empty =
    data && [data.label, data.contact, data.agent, data.message, data.post, data.liveChat].every((g) => g.length === 0);

  return (
    <Modal
      opened={opened}
      onClose={close}
      title={T.title}
      size="lg"
      centered
      data-testid="search-modal"
      styles={{ body: { paddingTop: 0 } }}
    >
      <Stack gap="sm">
        <TextInput
          ref={input}
          data-autofocus
          aria-label={T.placeholder}
          placeholder={T.placeholder}
          leftSection={<IconSearch size={16} />}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              run();
            }
          }}
          data-testid="search-input"
        />
        {text === '' ? (
          // SEARCH-01: the chips insert their key (Ticket inserts number:, the search's key for a ticket).
          <Group gap="xs" data-testid="search-chips">
            {SEARCH_CHIPS.map((c) => (
              <Chip key={c.key} checked={false} onClick={() => insert(c.key)} size="sm" variant="outline">
                {c.label}
              </Chip>
            ))}
          </Group>
        ) : (
          // SEARCH-02, SEARCH-03: typing switches to Clear and Enter.
          <Group gap="xs">
            <Button size="xs" variant="default" onClick={clear} data-testid="search-clear">
              {T.clear}
            </Button>
            <Button size="xs" onClick={() => run()} data-testid="search-enter">
              {T.enter}
            </Button>
          </Group>
        )}
        {results.isError && (
          <Alert color="red" data-testid="search-error">
            {errorText(results.error)}
          </Alert>
        )}
        {submitted && results.isFetching && !data && <Loader size="sm" />}
        {empty && (
          <Text c="dimmed" size="sm" data-testid="search-empty">
            {T.noResults}
          </Text>
        )}
        {data?.encrypted && (
          <Text c="dimmed" size="xs" data-testid="search-encrypted">
            {data.encrypted}
          </Text>
        )}
        {data && (
          <Stack gap="md" aria-label={T.results} mah="60vh" style={{ overflowY: 'auto' }}>
            {data.label.length > 0 && (
              <Group_ title="Label">
                <Group gap="xs">
                  {data.label.map((l) => (
                    <Badge
                      key={l.id}
                      color={l.color}
                      variant="light"
                      style={{ cursor: 'pointer' }}
                      onClick={() => refine(`label:"${l.name}"`)}
                    >
                      {l.name}
                    </Badge>
                  ))}
                </Group>
              </Group_>
            )}
            {data.contact.length > 0 && (
              <Group_ title="Contact">
                {data.contact.map((c) => (
                  <Hit key={`${c.uid}-${c.id}`} onClick={() => open(`/contacts/${c.id}`)} testId="search-contact">
                    <Text size="sm" fw={500}>
                      {c.name || c.uid}
                    </Text>
                    {c.name && (
                      <Text size="xs" c="dimmed">
                        {c.uid}
                      </Text>
                    )}
                  </Hit>
                ))}
              </Group_>
            )}
            {data.agent.length > 0 && (
              <Group_ title="Agent">
                {data.agent.map((a) => (
                  <Hit key={a.id} onClick={() => refine(`from:${a.username}`)} testId="search-agent">
                    <Text size="sm" fw={500}>
                      {a.name}{' '}
                      <Text span size="xs" c="dimmed">
                        @{a.username}
                      </Text>
                    </Text>
                  </Hit>
                ))}
              </Group_>
            )}
            {data.message.length > 0 && (
              <Group_
                title="Message"
                count={data.messageCount}
                capped={data.messageCountCapped}
                page={messagePage}
                onPage={setMessagePage}
              >
                {data.message.map((m) => (
                  <Hit
                    key={m.id}
                    onClick={() => open(conversationPath(m.channel, m.ticket_id))}
                    testId="search-message"
                  >
                    <Text size="xs" c="dimmed">
                      #{m.ticket_number} · {channelName(m.channel)} · {m.sender_name || m.sender}
                    </Text>
                    <Snippet html={m.message} />
                  </Hit>
                ))}
              </Group_>
            )}
            {data.post.length > 0 && (
              <Group_ title="Ticket" count={data.postCount} capped={data.postCountCapped} page={page} onPage={setPage}>
                {data.post.map((t) => (
                  <Hit key={t.id} onClick={() => open(conversationPath(t.channel, t.id))} testId="search-ticket">
                    <Text size="xs" c="dimmed">
                      #{t.ticket_number} · {channelName(t.channel)} · {t.name}
                    </Text>
                    <Snippet html={t.snippet} />
                  </Hit>
                ))}
              </Group_>
            )}
            {data.liveChat.length > 0 && (
              <Group_
                title="Live Chat"
                count={data.liveChatCount}
                capped={data.liveChatCountCapped}
                page={page}
                onPage={setPage}
              >
                {data.liveChat.map((t) => (
                  <Hit key={t.id} onClick={() => open(conversationPath(t.channel, t.id))} testId="search-livechat">
                    <Text size="xs" c="dimmed">
                      #{t.ticket_number} · {t.name}
                    </Text>
                    <Snippet html={t.snippet} />
                  </Hit>
                ))}
              </Group_>
            )}
          </Stack>
        )}
      </Stack>
    </Modal>
  );
}
