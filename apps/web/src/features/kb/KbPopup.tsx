import { Button, Group, Loader, Modal, Stack, Text, TextInput } from '@mantine/core';
import { KB_STRINGS as S } from '@parley/contracts';
import { IconSearch } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { errorText } from '../../lib/http';
import { kbKeys } from '../../lib/queryKeys';
import { Snippet } from '../../ui/Snippet';
import { kbApi } from './api';

/**
 * SHELL-31: the knowledge-base popup of a conversation. Searches the account's published articles; an
 * article's text or its public link goes into the reply box, where the agent can still change it.
 * The conversation gets it from app/ (ConversationParts), so it imports nothing of this feature.
 */
export function KbPopup({ onClose, onInsert }: { onClose(): void; onInsert(text: string): void }) {
  const [text, setText] = useState('');
  const [q, setQ] = useState('');
  const hits = useQuery({ queryKey: kbKeys.search(q), queryFn: () => kbApi.search(q) });
  return (
    <Modal opened onClose={onClose} title={S.popupTitle} size="lg">
      <Stack gap="sm" data-testid="kb-popup">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            setQ(text.trim());
          }}
        >
          <TextInput
            aria-label={S.popupSearch}
            placeholder={S.popupSearch}
            leftSection={<IconSearch size={16} />}
            value={text}
            data-autofocus
            onChange={(e) => {
              setText(e.currentTarget.value);
              if (e.currentTarget.value === '') setQ('');
            }}
          />
        </form>
        {hits.isPending ? (
          <Loader size="sm" aria-label="Loading" />
        ) : hits.isError ? (
          <Text c="red">{errorText(hits.error)}</Text>
        ) : hits.data.length === 0 ? (
          <Text c="dimmed">{S.popupEmpty}</Text>
        ) : (
          <Stack gap="xs" component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
            {hits.data.map((h) => (
              <li key={h.id} aria-label={h.title}>
                <Stack
                  gap={4}
                  p="xs"
                  style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 8 }}
                >
                  <Text fw={600}>{h.title}</Text>
                  {h.snippet && <Snippet html={h.snippet} />}
                  <Group gap="xs">
                    <Button size="xs" onClick={() => onInsert(h.text)}>
                      {S.insertText}
                    </Button>
                    <Button size="xs" variant="default" onClick={() => onInsert(`${window.location.origin}${h.url}`)}>
                      {S.insertLink}
                    </Button>
                  </Group>
                </Stack>
              </li>
            ))}
          </Stack>
        )}
      </Stack>
    </Modal>
  );
}
