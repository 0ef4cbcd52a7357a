import { Avatar, Badge, Group, Modal, Stack, Text } from '@mantine/core';
import { effectiveStatus, statusLabel } from '@parley/contracts';
import { useQuery } from '@tanstack/react-query';
import { UserProfileSections } from '../../features/profile/ProfileModal';
import { lastSeenText } from '../../features/status/OnlineUsersPanel';
import { colorOf } from '../../features/status/strings';
import { statusApi } from '../../lib/api/status';
import { statusKeys } from '../../lib/queryKeys';
import { shell, useShell } from '../../lib/shellStore';

/** SHELL-55: a colleague's profile: who they are and their status now. */
export function ColleagueProfileModal() {
  const userId = useShell((s) => s.profileUserId);
  const list = useQuery({ queryKey: statusKeys.online, queryFn: statusApi.online, enabled: userId !== null });
  const u = list.data?.find((x) => x.userId === userId);
  const s = u ? effectiveStatus(u) : 'OFFLINE';
  return (
    <Modal opened={userId !== null} onClose={() => shell.set({ profileUserId: null })} title="Profile" centered>
      {u && (
        <Stack>
          <Group>
            <Avatar src={u.photo ?? undefined} name={u.name} color="indigo" variant="filled" size="lg" radius="xl" />
            <div>
              <Text fw={600}>{u.name}</Text>
              <Text size="sm" c="dimmed">
                @{u.username} · uid {u.userId}
              </Text>
            </div>
          </Group>
          <Group gap="xs">
            <Badge color={colorOf(s)} variant="dot">
              {statusLabel(s)}
            </Badge>
            {u.reason && s !== 'ONLINE' && s !== 'OFFLINE' && <Text size="sm">{u.reason}</Text>}
            <Text size="sm" c="dimmed">
              {lastSeenText(u)}
            </Text>
          </Group>
          <UserProfileSections username={u.username} onLeave={() => shell.set({ profileUserId: null })} />
        </Stack>
      )}
    </Modal>
  );
}
