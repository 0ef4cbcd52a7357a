import { Button, Group, Modal, MultiSelect, Stack, TextInput } from '@mantine/core';
import { CHAT_TITLE_MAX, type ChatItem, WORKSPACE_STRINGS as W } from '@parley/contracts';
import { useState } from 'react';
import { useMe } from '../../lib/session';
import { useWrite } from '../../lib/useWrite';
import { chatApi, useTeam } from './api';

/** CHAT-07 (design): start a 1:1 chat (one person, no title) or a group with chosen team members. */
export function NewChatModal({
  opened,
  onClose,
  onCreated,
}: {
  opened: boolean;
  onClose: () => void;
  onCreated: (chat: ChatItem) => void;
}) {
  const me = useMe();
  const team = useTeam(opened);
  const [members, setMembers] = useState<string[]>([]);
  const [title, setTitle] = useState('');
  const { run, busy, error, setError } = useWrite();
  const options = (team.data ?? [])
    .filter((u) => u.userId !== me.userId)
    .map((u) => ({ value: String(u.userId), label: u.name ? `${u.name} (${u.username})` : u.username }));

  const close = () => {
    setMembers([]);
    setTitle('');
    setError(null);
    onClose();
  };
  const submit = async () => {
    if (members.length === 0) return setError(W.pickMembers);
    await run(async () => {
      const chat = await chatApi.create({ members: members.map(Number), title: title.trim() || undefined });
      close();
      onCreated(chat);
    });
  };

  return (
    <Modal opened={opened} onClose={close} title={W.newChat}>
      <Stack>
        <MultiSelect
          label={W.members}
          data={options}
          value={members}
          onChange={(v) => {
            setMembers(v);
            setError(null);
          }}
          searchable
          error={error}
          data-testid="chat-members"
          comboboxProps={{ withinPortal: true }}
        />
        <TextInput
          label={W.chatTitle}
          description={W.titleHint}
          value={title}
          maxLength={CHAT_TITLE_MAX}
          onChange={(e) => setTitle(e.currentTarget.value)}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={close}>
            {W.cancel}
          </Button>
          <Button onClick={submit} loading={busy}>
            {W.create}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
