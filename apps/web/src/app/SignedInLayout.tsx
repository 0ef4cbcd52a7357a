import { AppShell, Burger, Group, Stack } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { type AuthCheckAnswer, COOKIES, CUSTOM_STATUS_FETCH_FAILED, LOCAL_KEYS } from '@parley/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, Outlet, useLocation } from 'react-router';
import { SearchButton, SearchModal, useSearchShortcut } from '../features/search';
import { MyStatusModal } from '../features/status/MyStatusModal';
import { subscribePresence, useCustomStatuses } from '../features/status/presence';
import { getCookie, local, setCookie } from '../lib/cookies';
import { useShell } from '../lib/shellStore';
import { Logo } from '../ui/Logo';
import { Banners } from './shell/Banners';
import { BottomTabs, NARROW_QUERY, useOpenSavedTab } from './shell/BottomTabs';
import { ColleagueProfileModal } from './shell/ColleagueProfileModal';
import { DebugPanel } from './shell/DebugPanel';
import { ShellModals } from './shell/Modals';
import { NavPanel } from './shell/NavPanel';
import { navContextOf } from './shell/navContext';
import { useShellFeed } from './shell/useShellFeed';
import { useShortcuts } from './shell/useShortcuts';

/** SHELL-40, SHELL-41: "(3) Parley - Ann Admin"; the count only when something is unread. */
export function pageTitle(product: string, adminName: string | undefined, unread: number): string {
  return `${unread > 0 ? `(${unread}) ` : ''}${product}${adminName ? ` - ${adminName}` : ''}`;
}

/** The frame around every signed-in screen: navigation, banners, modals, bottom tabs on narrow screens. */
export function SignedInLayout({ session }: { session: AuthCheckAnswer }) {
  const { pathname } = useLocation();
  const qc = useQueryClient();
  const narrow = useMediaQuery(NARROW_QUERY);
  const [mobileOpen, setMobileOpen] = useState(false);
  // NAV-39, NAV-40: always_display=0 lets the panel stay collapsed; kept about a year.
  const [collapsed, setCollapsed] = useState(() => getCookie(COOKIES.alwaysDisplay) === '0');
  const unread = useShell((s) => s.unread);
  const title = session.productDetails?.title ?? 'Parley';
  const custom = useCustomStatuses();
  const variant = navContextOf(session).variant;
  const chatAllowed = session.productDetails?.chat_allowed !== false;
  useShortcuts();
  useSearchShortcut();
  useShellFeed(session);
  useOpenSavedTab(variant, chatAllowed);

  useEffect(() => {
    document.title = pageTitle(title, session.adminName, unread);
  }, [title, session.adminName, unread]);
  useEffect(() => subscribePresence(qc, session.userId), [qc, session.userId]);
  useEffect(() => {
    if (session.adminName) setCookie(COOKIES.displayName, session.adminName);
  }, [session.adminName]);
  // SHELL-14, SHELL-15: the last ticket location; the Tickets entry returns there. Going somewhere closes
  // the phone's drawer (only then: the effect must not run on other renders, or the drawer never opens).
  useEffect(() => {
    if (pathname.includes('ticket')) local.set(LOCAL_KEYS.lastTicketPath, pathname);
    setMobileOpen(false);
  }, [pathname]);
  // STATUS-19: without the custom statuses the status menu would be wrong; say so and reload.
  useEffect(() => {
    if (custom.isError) {
      window.alert(CUSTOM_STATUS_FETCH_FAILED);
      window.location.reload();
    }
  }, [custom.isError]);

  const toggle = () => {
    setCollapsed((c) => {
      setCookie(COOKIES.alwaysDisplay, c ? '1' : '0');
      return !c;
    });
  };
  const noNav = pathname.startsWith('/mobile/ticket'); // NAV-02
  const isCollapsed = collapsed && !narrow;

  return (
    <AppShell
      header={narrow ? { height: 52 } : undefined}
      navbar={
        noNav ? undefined : { width: isCollapsed ? 72 : 240, breakpoint: 'sm', collapsed: { mobile: !mobileOpen } }
      }
      footer={narrow ? { height: 60 } : undefined}
      padding="md"
    >
      {narrow && (
        <AppShell.Header px="sm">
          <Group h="100%" gap="sm">
            {!noNav && (
              <Burger
                opened={mobileOpen}
                onClick={() => setMobileOpen((o) => !o)}
                size="sm"
                aria-label="Open navigation"
              />
            )}
            <Link to="/" style={{ textDecoration: 'none', color: 'inherit' }}>
              <Logo title={title} />
            </Link>
            <Group ml="auto">
              <SearchButton />
            </Group>
          </Group>
        </AppShell.Header>
      )}
      {!noNav && (
        <AppShell.Navbar aria-label="Navigation">
          {!narrow && (
            <Group h={56} px="md" justify={isCollapsed ? 'center' : 'space-between'} wrap="nowrap">
              <Link to="/" style={{ textDecoration: 'none', color: 'inherit' }} aria-label={title}>
                <Logo title={isCollapsed ? '' : title} />
              </Link>
              {!isCollapsed && <SearchButton />}
            </Group>
          )}
          <NavPanel session={session} collapsed={isCollapsed} onToggle={toggle} />
        </AppShell.Navbar>
      )}
      <AppShell.Main>
        <Stack gap="sm">
          <Banners session={session} />
          <Outlet />
        </Stack>
      </AppShell.Main>
      {narrow && (
        <AppShell.Footer>
          <BottomTabs variant={variant} chatAllowed={chatAllowed} />
        </AppShell.Footer>
      )}
      <ShellModals />
      <MyStatusModal />
      <SearchModal />
      <ColleagueProfileModal />
      <DebugPanel session={session} />
    </AppShell>
  );
}
