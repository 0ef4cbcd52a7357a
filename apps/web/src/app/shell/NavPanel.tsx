import {
  ActionIcon,
  Button,
  Group,
  Indicator,
  Popover,
  ScrollArea,
  Stack,
  Text,
  Tooltip,
  VisuallyHidden,
} from '@mantine/core';
import {
  type AuthCheckAnswer,
  DEFAULT_PINNED_NAV,
  LOCAL_KEYS,
  NAV_HINTS,
  type NavItem,
  type NavKey,
  visibleNavItems,
} from '@parley/contracts';
import { IconCheck, IconChevronsLeft, IconChevronsRight, IconPencil, IconPin } from '@tabler/icons-react';
import { type ReactNode, useState } from 'react';
import { NavLink as RouterLink, useLocation } from 'react-router';
import { CallServerIndicator } from '../../features/calls/CallServerIndicator';
import { ActiveCallBar, IncomingCallEntry } from '../../features/calls/IncomingCallEntry';
import { useIncomingCall } from '../../features/calls/incomingCall';
import { NotificationBell } from '../../features/notifications/NotificationBell';
import { OnlineUsersPanel } from '../../features/status/OnlineUsersPanel';
import { local } from '../../lib/cookies';
import { useShell } from '../../lib/shellStore';
import classes from './NavPanel.module.css';
import { navContextOf } from './navContext';
import { NAV_ICONS } from './navIcons';
import { UserMenu } from './UserMenu';

type HintKey = 'minimized' | 'edit' | 'calendar';

function Hint({
  opened,
  children,
  onDone,
  target,
}: {
  opened: boolean;
  children: ReactNode;
  onDone(): void;
  target: ReactNode;
}) {
  return (
    <Popover opened={opened} position="right" withArrow shadow="md" width={240} zIndex={300} withRoles={false}>
      <Popover.Target>{target}</Popover.Target>
      <Popover.Dropdown role="dialog" aria-label="Hint">
        <Stack gap="xs">
          {children}
          <Group justify="flex-end">
            <Button size="xs" onClick={onDone}>
              {NAV_HINTS.gotIt}
            </Button>
          </Group>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}

/**
 * NAV-01 .. NAV-38: the left navigation panel. Collapsed, it shows only the items chosen in edit mode
 * (kept in local storage); first-time hints explain that once.
 */
export function NavPanel({
  session,
  collapsed,
  onToggle,
}: {
  session: AuthCheckAnswer;
  collapsed: boolean;
  onToggle(): void;
}) {
  // NAV-16, NAV-17: while a call rings, Incoming Call takes the place of Call.
  const call = useIncomingCall();
  const items = visibleNavItems(navContextOf(session, call?.state === 'ringing'));
  const [pinned, setPinnedState] = useState<NavKey[]>(() => local.get(LOCAL_KEYS.pinnedNav, [...DEFAULT_PINNED_NAV]));
  const [editing, setEditing] = useState(false);
  const [hintsSeen, setHintsSeen] = useState<HintKey[]>(() => local.get(LOCAL_KEYS.navHintsSeen, []));
  const badges = useShell((s) => ({ tickets: s.ticketUnread, kanban: s.kanbanNotify, livechats: s.liveChatBadge }));
  const { pathname } = useLocation();

  const seeHint = (k: HintKey) => {
    const next = [...new Set([...hintsSeen, k])];
    setHintsSeen(next);
    local.set(LOCAL_KEYS.navHintsSeen, next);
  };
  const togglePin = (k: NavKey) => {
    const next = pinned.includes(k) ? pinned.filter((p) => p !== k) : [...pinned, k];
    setPinnedState(next);
    local.set(LOCAL_KEYS.pinnedNav, next);
  };
  // A ringing call shows whatever is pinned.
  const shown =
    collapsed && !editing ? items.filter((i) => pinned.includes(i.key) || i.key === 'incoming_call') : items;
  const hintMinimized = collapsed && !hintsSeen.includes('minimized');
  const hintEdit = collapsed && hintsSeen.includes('minimized') && !hintsSeen.includes('edit');
  const active = (i: NavItem) =>
    i.route === '/' ? pathname === '/' : pathname === i.route || pathname.startsWith(`${i.route}/`);

  return (
    <Stack gap={0} className={classes.panel} data-collapsed={collapsed || undefined} style={{ flex: 1, minHeight: 0 }}>
      <ScrollArea style={{ flex: 1 }} type="hover" scrollbarSize={6}>
        <Stack gap={2} p="xs" component="ul" className={classes.list} aria-label="Main navigation">
          {shown.map((i) => {
            if (i.key === 'incoming_call')
              return (
                <li key={i.key}>
                  <IncomingCallEntry collapsed={collapsed} label={i.label} />
                </li>
              );
            const Icon = NAV_ICONS[i.key];
            const badge =
              (i.key === 'tickets' && badges.tickets) ||
              (i.key === 'kanban' && badges.kanban) ||
              (i.key === 'livechats' && badges.livechats);
            // The dot is drawn; screen readers hear it as a word after the label.
            const badgeWord = badge ? (i.key === 'kanban' ? ', updated' : ', unread') : '';
            const icon = (
              <Indicator disabled={!badge} size={8} color="red" offset={2}>
                <Icon size={20} stroke={1.6} />
              </Indicator>
            );
            const isPinned = pinned.includes(i.key);
            if (editing) {
              return (
                <li key={i.key}>
                  <button
                    type="button"
                    className={classes.item}
                    aria-pressed={isPinned}
                    aria-label={collapsed ? i.label : undefined}
                    onClick={() => togglePin(i.key)}
                    data-testid={`nav-edit-${i.key}`}
                  >
                    {icon}
                    {!collapsed && <span className={classes.label}>{i.label}</span>}
                    <IconPin size={14} className={classes.pin} data-on={isPinned || undefined} aria-hidden />
                  </button>
                </li>
              );
            }
            return (
              <li key={i.key}>
                <Tooltip label={i.label} position="right" disabled={!collapsed} openDelay={200}>
                  <RouterLink
                    to={i.key === 'tickets' ? local.get(LOCAL_KEYS.lastTicketPath, i.route) : i.route}
                    className={classes.item}
                    data-active={active(i) || undefined}
                    aria-current={active(i) ? 'page' : undefined}
                    aria-label={collapsed ? `${i.label}${badgeWord}` : undefined}
                    data-testid={`nav-${i.key}`}
                    data-badge={badge || undefined}
                    onClick={i.hint ? () => seeHint(i.key as HintKey) : undefined}
                  >
                    {icon}
                    {!collapsed && <span className={classes.label}>{i.label}</span>}
                    {!collapsed && badgeWord && <VisuallyHidden>{badgeWord}</VisuallyHidden>}
                    {!collapsed && i.hint && !hintsSeen.includes(i.key as HintKey) && (
                      <Text span size="xs" c="dimmed" className={classes.hint}>
                        {i.hint}
                      </Text>
                    )}
                  </RouterLink>
                </Tooltip>
              </li>
            );
          })}
        </Stack>
      </ScrollArea>
      <Stack gap={4} p="xs" className={classes.footer}>
        <ActiveCallBar collapsed={collapsed} />
        <Group gap={4} justify={collapsed ? 'center' : 'space-between'} wrap={collapsed ? 'wrap' : 'nowrap'}>
          <Hint
            opened={hintEdit}
            onDone={() => seeHint('edit')}
            target={
              <Tooltip label={NAV_HINTS.editVisibility} position="right">
                <ActionIcon
                  variant={editing ? 'filled' : 'subtle'}
                  color={editing ? undefined : 'gray'}
                  size="lg"
                  aria-label={editing ? 'Done' : NAV_HINTS.editVisibility}
                  aria-pressed={editing}
                  onClick={() => setEditing((e) => !e)}
                  data-testid="nav-edit"
                >
                  {editing ? <IconCheck size={18} /> : <IconPencil size={18} stroke={1.6} />}
                </ActionIcon>
              </Tooltip>
            }
          >
            <Text size="sm">{NAV_HINTS.editVisibility}</Text>
          </Hint>
          <OnlineUsersPanel collapsed={collapsed} />
          {/* NAV-38: the call-server indicator, for users with an active SIP line. */}
          <CallServerIndicator session={session} />
          {/* NAV-37: the bell opens the notifications panel. */}
          <NotificationBell variant={navContextOf(session).variant} />
          <Hint
            opened={hintMinimized}
            onDone={() => seeHint('minimized')}
            target={
              <Tooltip label={collapsed ? 'Expand' : 'Collapse'} position="right">
                <ActionIcon
                  variant="subtle"
                  color="gray"
                  size="lg"
                  aria-label={collapsed ? 'Expand navigation' : 'Collapse navigation'}
                  aria-expanded={!collapsed}
                  onClick={onToggle}
                  data-testid="nav-toggle"
                >
                  {collapsed ? <IconChevronsRight size={18} /> : <IconChevronsLeft size={18} />}
                </ActionIcon>
              </Tooltip>
            }
          >
            <Text size="sm" fw={500}>
              {NAV_HINTS.minimized}
            </Text>
            <Text size="xs" c="dimmed">
              {NAV_HINTS.minimizedMore}
            </Text>
          </Hint>
        </Group>
        <UserMenu session={session} collapsed={collapsed} />
      </Stack>
    </Stack>
  );
}
