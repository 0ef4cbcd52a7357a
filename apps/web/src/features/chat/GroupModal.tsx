import { ActionIcon, Button, Group, Modal, MultiSelect, Stack, Text, TextInput } from '@mantine/core';
import { CHAT_TITLE_MAX, type ChatAnswer, type ChatItem, WORKSPACE_STRINGS as W } from '@parley/contracts';
import { IconX } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { api } from '../../lib/http';
import { useMe } from '../../lib/session';
import { useWrite } from '../../lib/useWrite';
import { useTeam } from './api';

/** CHAT-07 (design): a group's title, members added and removed (removing oneself is leaving). */
export function GroupModal({ chat, opened, onClose }: { chat: ChatItem; opened: boolean; onClose: () => void }) {
  const me = useMe();
  const team = useTeam(opened);
  const [title, setTitle] = useState(chat.title);
  const [add, setAdd] = useState<string[]>([]);
  const [remove, setRemove] = useState<number[]>([]);
  const { run, busy, error, setError } = useWrite();
  useEffect(() => {
    if (!opened) return;
    setTitle(chat.title);
    setAdd([]);
    setRemove([]);
    setError(null);
  }, [opened, chat.title, setError]);
  const inChat = new Set(chat.members.map((m) => m.user_id));
  const options = (team.data ?? [])
    .filter((u) => !inChat.has(u.userId))
    .map((u) => ({ value: String(u.userId), label: u.name ? `${u.name} (${u.username})` : u.username }));

  const save = async () => {
    const saved = await run(() =>
      api<ChatAnswer>('POST', '/api/chat/update', {
        id: chat.id,
        title: title.trim() !== chat.title ? title.trim() : undefined,
        add: add.map(Number),
        remove,
      }),
    );
    if (saved) onClose();
  };

  return (
    <Modal opened={opened} onClose={onClose} title={W.members}>
      <Stack>
        <TextInput
          label={W.chatTitle}
          value={title}
          maxLength={CHAT_TITLE_MAX}
          onChange={(e) => setTitle(e.currentTarget.value)}
        />
        <Stack gap={4} data-testid="group-members">
          {chat.members
            .filter((m) => !remove.includes(m.user_id))
            .map((m) => (
              <Group key={m.user_id} justify="space-between">
                <Text size="sm">
                  {m.name || m.username}
                  {m.user_id === me.userId ? ` (${W.you})` : ''}
                </Text>
                <ActionIcon
                  variant="subtle"
                  color="red"
                  aria-label={`Remove ${m.name || m.username}`}
                  onClick={() => setRemove([...remove, m.user_id])}
                >
                  <IconX size={14} />
                </ActionIcon>
              </Group>
            ))}
        </Stack>
        <MultiSelect
          label="Add"
          data={options}
          value={add}
          onChange={setAdd}
          searchable
          comboboxProps={{ withinPortal: true }}
        />
        {error && (
          <Text c="red" size="sm" role="alert">
            {error}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {W.cancel}
          </Button>
          <Button onClick={save} loading={busy}>
            Save
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
