import { Indicator, UnstyledButton } from '@mantine/core';
import {
  BOTTOM_TABS,
  type BottomTab,
  bottomTabsFor,
  DEFAULT_BOTTOM_TAB,
  type HostVariant,
  LOCAL_KEYS,
} from '@parley/contracts';
import { IconHeadset, IconMessages, IconTicket } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { local } from '../../lib/cookies';
import { useShell } from '../../lib/shellStore';
import classes from './BottomTabs.module.css';

const ICONS = { ticket: IconTicket, livechat: IconHeadset, chat: IconMessages };

/** The tab the narrow layout opens on: the last chosen, else Workspace. */
export const savedBottomTab = () => local.get<BottomTab>(LOCAL_KEYS.bottomTab, DEFAULT_BOTTOM_TAB);

/** The narrow layout's width (Mantine's `sm` breakpoint), where the bottom tabs replace the panel. */
export const NARROW_QUERY = '(max-width: 48em)';

/**
 * SHELL-33: opened on a narrow screen at its start address, the app opens the saved tab (by
 * default Workspace; the first tab there is when the saved one is not offered on this host). Only when the
 * page loads: Home stays reachable afterwards.
 */
export function useOpenSavedTab(variant: HostVariant, chatAllowed: boolean) {
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const [atStart] = useState(() => pathname === '/' && window.matchMedia(NARROW_QUERY).matches);
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, for the page as it was opened.
  useEffect(() => {
    if (!atStart) return;
    const offered = bottomTabsFor(variant, chatAllowed);
    const saved = savedBottomTab();
    const tab = offered.includes(saved) ? saved : offered[0];
    if (tab) navigate(BOTTOM_TABS[tab].route, { replace: true });
  }, [atStart]);
}

/** SHELL-33 .. SHELL-35: bottom tabs on narrow screens. */
export function BottomTabs({ variant, chatAllowed }: { variant: HostVariant; chatAllowed: boolean }) {
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const [tab, setTab] = useState<BottomTab>(savedBottomTab);
  const badges = useShell((s) => ({ livechat: s.liveChatBadge, chat: s.chatBadge, ticket: s.ticketUnread }));
  const current =
    (Object.keys(BOTTOM_TABS) as BottomTab[]).find((k) => pathname.startsWith(BOTTOM_TABS[k].route)) ?? tab;
  return (
    <nav className={classes.bar} aria-label="Sections">
      {bottomTabsFor(variant, chatAllowed).map((k) => {
        const Icon = ICONS[k];
        return (
          <UnstyledButton
            key={k}
            className={classes.tab}
            data-active={current === k || undefined}
            aria-current={current === k ? 'page' : undefined}
            onClick={() => {
              setTab(k);
              local.set(LOCAL_KEYS.bottomTab, k);
              navigate(BOTTOM_TABS[k].route);
            }}
            data-testid={`tab-${k}`}
            data-badge={badges[k] || undefined}
          >
            <Indicator disabled={!badges[k]} size={8} color="red" offset={2}>
              <Icon size={22} stroke={1.6} />
            </Indicator>
            <span>{BOTTOM_TABS[k].label}</span>
          </UnstyledButton>
        );
      })}
    </nav>
  );
}
