import {
  ActionIcon,
  Avatar,
  Box,
  Group,
  Indicator,
  Popover,
  ScrollArea,
  Stack,
  Text,
  Tooltip,
  UnstyledButton,
} from '@mantine/core';
import { effectiveStatus, ONLINE_PANEL_REFRESH_MS, SHADOW_ADMIN, statusLabel } from '@parley/contracts';
import { IconUsers } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import dayjs from 'dayjs';
import relativeTime from 'dayjs/plugin/relativeTime';
import { useEffect, useRef, useState } from 'react';
import { statusApi } from '../../lib/api/status';
import { statusKeys } from '../../lib/queryKeys';
import { shell } from '../../lib/shellStore';
import { colorOf, t } from './strings';

dayjs.extend(relativeTime);

/** STATUS-26: "Online now", else "Last seen 5 minutes ago". */
export function lastSeenText(u: { status: string; last_seen: number | null }, now = Date.now()): string {
  if (u.status !== 'OFFLINE') return t.onlineNow;
  return u.last_seen ? t.lastSeen(dayjs(u.last_seen).from(now)) : t.neverSeen;
}

/** Whether this window has the focus (not only whether the tab is visible), following focus and blur. */
export function useWindowFocused(): boolean {
  const [focused, setFocused] = useState(() => document.hasFocus());
  useEffect(() => {
    const on = () => setFocused(true);
    const off = () => setFocused(false);
    window.addEventListener('focus', on);
    window.addEventListener('blur', off);
    return () => {
      window.removeEventListener('focus', on);
      window.removeEventListener('blur', off);
    };
  }, []);
  return focused;
}

/**
 * STATUS-20 .. STATUS-24: a 300x400 panel of the account's users, rows of 71 px, refreshed every 60 s while
 * it is open and the window has focus; live status changes arrive over the socket in between.
 */
export function OnlineUsersPanel({ collapsed }: { collapsed: boolean }) {
  const [opened, setOpened] = useState(false);
  const focused = useWindowFocused();
  // STATUS-22: every 60 s while open and focused; a window that gets the focus back refreshes at once.
  const list = useQuery({
    queryKey: statusKeys.online,
    queryFn: statusApi.online,
    enabled: opened,
    refetchInterval: opened && focused ? ONLINE_PANEL_REFRESH_MS : false,
  });
  const wasFocused = useRef(focused);
  const { refetch } = list;
  useEffect(() => {
    if (focused && !wasFocused.current && opened) void refetch();
    wasFocused.current = focused;
  }, [focused, opened, refetch]);
  const users = (list.data ?? []).filter((u) => u.username !== SHADOW_ADMIN);
  const onlineCount = users.filter((u) => u.status !== 'OFFLINE').length;
  return (
    <Popover opened={opened} onChange={setOpened} position="right-end" withArrow shadow="md" trapFocus>
      <Popover.Target>
        <Tooltip label={t.onlineUsers} position="right" disabled={!collapsed}>
          <ActionIcon
            variant="subtle"
            color="gray"
            size="lg"
            aria-label={t.onlineUsers}
            onClick={() => setOpened((o) => !o)}
            data-testid="online-users-toggle"
          >
            <IconUsers size={20} stroke={1.6} />
          </ActionIcon>
        </Tooltip>
      </Popover.Target>
      <Popover.Dropdown p={0} w={300} h={400} data-testid="online-users" aria-label={t.onlineUsers}>
        <Group px="md" py="xs" justify="space-between">
          <Text fw={600}>{t.onlineUsers}</Text>
          <Text size="xs" c="dimmed">
            {onlineCount} / {users.length}
          </Text>
        </Group>
        <ScrollArea h={400 - 42}>
          <Stack gap={0}>
            {users.map((u) => {
              const s = effectiveStatus(u);
              return (
                <UnstyledButton
                  key={u.userId}
                  onClick={() => {
                    setOpened(false);
                    shell.set({ profileUserId: u.userId });
                  }}
                >
                  <Group h={71} px="md" wrap="nowrap" gap="sm" data-testid="online-user">
                    <Indicator color={colorOf(s)} position="bottom-end" size={12} withBorder offset={4}>
                      <Avatar src={u.photo ?? undefined} name={u.name} color="indigo" variant="filled" radius="xl" />
                    </Indicator>
                    <Box miw={0} style={{ flex: 1 }}>
                      <Text size="sm" fw={500} truncate>
                        {u.name}
                      </Text>
                      <Text size="xs" c="dimmed" truncate>
                        {statusLabel(s)}
                        {u.reason && s !== 'ONLINE' && s !== 'OFFLINE' ? ` · ${u.reason}` : ''} · {lastSeenText(u)}
                      </Text>
                    </Box>
                  </Group>
                </UnstyledButton>
              );
            })}
          </Stack>
        </ScrollArea>
      </Popover.Dropdown>
    </Popover>
  );
}
