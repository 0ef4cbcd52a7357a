import { ActionIcon, Button, Group, Modal, Select, Stack, Text, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { LIVECHAT_STRINGS as L, type LiveChatGroup } from '@parley/contracts';
import { IconArrowMerge } from '@tabler/icons-react';
import { useState } from 'react';
import { api } from '../../lib/http';
import { liveChatKeys } from '../../lib/queryKeys';
import { useWrite } from '../../lib/useWrite';

/**
 * LIVECHAT-09, LIVECHAT-10 (design): merging starts from a group's merge button: pick another loaded
 * session and its chats join this group (`POST /api/livechat/merge` with this session_id and the picked
 * ref_id). Every agent's list then shows one group listing both sessions.
 */
export function MergeSessions({ group, groups }: { group: LiveChatGroup; groups: LiveChatGroup[] }) {
  const [opened, setOpened] = useState(false);
  const [pick, setPick] = useState<string | null>(null);
  const { run, busy, error, setError } = useWrite({ invalidate: liveChatKeys.list });
  const others = groups
    .filter((g) => g.session_id !== group.session_id)
    .map((g) => ({
      value: String(g.session_id),
      label: `${g.session_name || '—'} (#${g.livechats.map((c) => c.ticket_number).join(', #')})`,
    }));
  const merge = async () => {
    if (!pick) return;
    if (await run(() => api('POST', '/api/livechat/merge', { session_id: group.session_id, ref_id: Number(pick) }))) {
      notifications.show({ message: L.merged });
      setOpened(false);
    }
  };
  if (others.length === 0) return null;
  return (
    <>
      <Tooltip label={L.merge}>
        <ActionIcon
          variant="subtle"
          size="sm"
          aria-label={`${L.merge}: ${group.session_name}`}
          onClick={() => {
            setPick(null);
            setError(null);
            setOpened(true);
          }}
        >
          <IconArrowMerge size={16} />
        </ActionIcon>
      </Tooltip>
      <Modal opened={opened} onClose={() => setOpened(false)} title={L.merge}>
        <Stack>
          <Text size="sm">
            {L.mergeInto}: <b>{group.session_name}</b>
          </Text>
          <Select
            label={L.mergePick}
            data={others}
            value={pick}
            onChange={setPick}
            searchable
            error={error}
            comboboxProps={{ withinPortal: true }}
            data-testid="merge-select"
          />
          <Group justify="flex-end">
            <Button onClick={() => void merge()} loading={busy} disabled={!pick}>
              {L.mergeConfirm}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
