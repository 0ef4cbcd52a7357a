import {
  ActionIcon,
  AppShell,
  Badge,
  Button,
  Group,
  Stack,
  Tooltip,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import type { AuthCheckAnswer } from '@parley/contracts';
import { useEffect, useState } from 'react';
import { Link, Outlet } from 'react-router';
import { useSignOut } from '../features/auth/useSession';
import { ExpiredNotice } from '../features/plans/ExpiredNotice';
import { realtime } from '../lib/realtime';
import { Logo } from '../ui/Logo';

function useConnected() {
  const [connected, setConnected] = useState(realtime.connected);
  useEffect(() => realtime.onState(setConnected), []);
  return connected;
}

/** The frame around every signed-in screen until the shell issue brings the navigation panel. */
export function SignedInLayout({ session }: { session: AuthCheckAnswer }) {
  const connected = useConnected();
  const signOut = useSignOut();
  const { setColorScheme } = useMantineColorScheme();
  const colorScheme = useComputedColorScheme('light');
  const title = session.productDetails?.title ?? 'Parley';

  useEffect(() => {
    document.title = `${title} - ${session.adminName ?? ''}`;
  }, [title, session.adminName]);

  return (
    <AppShell header={{ height: 56 }} padding="md">
      <AppShell.Header px="md">
        <Group h="100%" justify="space-between">
          <Link to="/" style={{ textDecoration: 'none', color: 'inherit' }}>
            <Logo title={title} />
          </Link>
          <Group gap="sm">
            <Badge color={connected ? 'green' : 'gray'} variant="dot" data-testid="connection">
              {connected ? 'Connected' : 'Connecting…'}
            </Badge>
            <Tooltip label={colorScheme === 'dark' ? 'Light theme' : 'Dark theme'}>
              <ActionIcon
                variant="default"
                size="lg"
                aria-label="Toggle theme"
                onClick={() => setColorScheme(colorScheme === 'dark' ? 'light' : 'dark')}
              >
                {colorScheme === 'dark' ? '☀' : '☾'}
              </ActionIcon>
            </Tooltip>
            <Button variant="default" component={Link} to="/settings">
              Settings
            </Button>
            <Button variant="default" onClick={signOut}>
              Log Out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Main>
        <Stack gap="md">
          <ExpiredNotice expired={session.expired} />
          <Outlet />
        </Stack>
      </AppShell.Main>
    </AppShell>
  );
}
