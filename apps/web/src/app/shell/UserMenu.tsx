import {
  Avatar,
  Box,
  Button,
  Group,
  Indicator,
  Menu,
  Popover,
  Stack,
  Text,
  UnstyledButton,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { type AuthCheckAnswer, effectiveStatus, NAV_HINTS, PLANS, statusLabel } from '@parley/contracts';
import {
  IconInfoCircle,
  IconLogout,
  IconMoon,
  IconPlugConnected,
  IconPlugConnectedX,
  IconRocket,
  IconSettings,
  IconUserCircle,
} from '@tabler/icons-react';
import { useLocation, useNavigate } from 'react-router';
import { useMyStatus } from '../../features/status/presence';
import { colorOf } from '../../features/status/strings';
import { avatarHintSeen, useCookieFlag } from '../../lib/prefs';
import { realtime } from '../../lib/realtime';
import { shell } from '../../lib/shellStore';
import { useConnected } from '../../lib/useConnected';
import { NARROW_QUERY } from './BottomTabs';

/**
 * NAV-34, NAV-35: the user menu. It names the product for this host and the version, and holds My Status,
 * Settings, About, Upgrade, the socket switch and Log Out (which asks first, NAV-36).
 */
export function UserMenu({ session, collapsed }: { session: AuthCheckAnswer; collapsed: boolean }) {
  const navigate = useNavigate();
  // The avatar hint shows on the home screen only, where it covers nothing one is working on.
  const { pathname } = useLocation();
  const me = useMyStatus();
  const { setColorScheme } = useMantineColorScheme();
  const dark = useComputedColorScheme('light') === 'dark';
  const connected = useConnected();
  // On a phone the drawer takes the whole width: the menu opens above the button, not beside it.
  const narrow = useMediaQuery(NARROW_QUERY);
  const [hintSeen, setHintSeen] = useCookieFlag(avatarHintSeen);
  const status = connected ? (me.data ? effectiveStatus(me.data) : 'ONLINE') : 'OFFLINE';
  const title = session.productDetails?.title ?? 'Parley';
  const canUpgrade = session.type === 'admin' && (session.plan ?? 0) < PLANS.enterprise;

  const avatar = (
    <Indicator color={colorOf(status)} position="bottom-end" size={11} withBorder offset={4}>
      <Avatar
        src={session.photo ?? undefined}
        name={session.adminName}
        color="indigo"
        variant="filled"
        radius="xl"
        size={34}
      />
    </Indicator>
  );

  return (
    <Popover
      opened={!hintSeen && !collapsed && pathname === '/'}
      position={narrow ? 'top' : 'right-end'}
      withArrow
      shadow="md"
      width={240}
      zIndex={300}
      withRoles={false}
    >
      <Popover.Target>
        <Box>
          <Menu position={narrow ? 'top' : 'right-end'} width={240} shadow="md" withinPortal>
            <Menu.Target>
              <UnstyledButton
                aria-label={collapsed ? `${session.adminName}, ${statusLabel(status)}` : undefined}
                data-testid="user-menu"
                data-connected={connected}
                p={4}
                style={{ borderRadius: 'var(--mantine-radius-md)', width: '100%' }}
              >
                <Group gap="sm" wrap="nowrap" justify={collapsed ? 'center' : 'flex-start'}>
                  {avatar}
                  {!collapsed && (
                    <Box miw={0}>
                      <Text size="sm" fw={600} truncate>
                        {session.adminName}
                      </Text>
                      <Text size="xs" c="dimmed" truncate data-testid="my-status-label">
                        {statusLabel(status)}
                      </Text>
                    </Box>
                  )}
                </Group>
              </UnstyledButton>
            </Menu.Target>
            <Menu.Dropdown>
              <Menu.Item disabled style={{ cursor: 'default', opacity: 1 }}>
                <Text size="sm" fw={700}>
                  {title}
                </Text>
                <Text size="xs" c="dimmed" data-testid="app-version">
                  Version {__APP_VERSION__}
                </Text>
              </Menu.Item>
              <Menu.Divider />
              <Menu.Item
                leftSection={
                  <Indicator color={colorOf(status)} size={10} position="middle-center" inline ml={4} mr={4} />
                }
                onClick={() => shell.set({ myStatusOpen: true })}
              >
                My Status
              </Menu.Item>
              <Menu.Item leftSection={<IconSettings size={16} />} onClick={() => shell.openSettings(0)}>
                Settings
              </Menu.Item>
              <Menu.Item leftSection={<IconUserCircle size={16} />} onClick={() => navigate('/settings/security')}>
                Account & security
              </Menu.Item>
              <Menu.Item
                leftSection={<IconMoon size={16} />}
                closeMenuOnClick={false}
                onClick={() => setColorScheme(dark ? 'light' : 'dark')}
                rightSection={
                  <Text size="xs" c="dimmed">
                    {dark ? 'On' : 'Off'}
                  </Text>
                }
              >
                Dark theme
              </Menu.Item>
              <Menu.Item leftSection={<IconInfoCircle size={16} />} onClick={() => navigate('/about')}>
                About
              </Menu.Item>
              {canUpgrade && (
                <Menu.Item leftSection={<IconRocket size={16} />} onClick={() => shell.set({ upgradeOpen: true })}>
                  Upgrade
                </Menu.Item>
              )}
              {connected ? (
                <Menu.Item leftSection={<IconPlugConnectedX size={16} />} onClick={() => realtime.disconnect()}>
                  Disconnect
                </Menu.Item>
              ) : (
                <Menu.Item leftSection={<IconPlugConnected size={16} />} onClick={() => realtime.connect()}>
                  Connect
                </Menu.Item>
              )}
              <Menu.Divider />
              <Menu.Item
                leftSection={<IconLogout size={16} color="var(--mantine-color-red-filled)" />}
                onClick={() => shell.set({ logoutConfirmOpen: true })}
              >
                Log Out
              </Menu.Item>
            </Menu.Dropdown>
          </Menu>
        </Box>
      </Popover.Target>
      <Popover.Dropdown role="dialog" aria-label="Hint">
        <Stack gap="xs">
          <Text size="sm">{NAV_HINTS.avatar}</Text>
          <Group justify="flex-end">
            <Button size="xs" onClick={() => setHintSeen(true)}>
              {NAV_HINTS.gotIt}
            </Button>
          </Group>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}
