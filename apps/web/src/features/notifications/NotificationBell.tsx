import {
  ActionIcon,
  Avatar,
  Box,
  Button,
  CloseButton,
  Group,
  Indicator,
  Popover,
  ScrollArea,
  Stack,
  Switch,
  Tabs,
  Text,
  Tooltip,
  UnstyledButton,
} from '@mantine/core';
import {
  avatarUrl,
  CHECK_FLAG_OF,
  firstNotificationTab,
  type HostVariant,
  NOTIFICATION_PAGE_SIZE,
  type Notification,
  type NotificationCategory,
  notificationLink,
  relativeTime,
  NOTIFICATION_STRINGS as S,
} from '@parley/contracts';
import {
  IconAlertTriangle,
  IconBell,
  IconBellRinging,
  IconInfoCircle,
  IconVolume,
  IconVolumeOff,
} from '@tabler/icons-react';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { useRealtimeEvent } from '../../lib/realtime';
import { useSession } from '../../lib/session';
import { playNotification } from '../../lib/sound';
import { notificationsApi } from './api';
import { watchMessages } from './messageNotifier';
import { useOpenLinkedConversation } from './openLinked';
import { onPrefsChange, soundPref } from './prefs';
import { registerWebPush, reportFocus } from './push';

const TABS: NotificationCategory[] = ['sla', 'trade', 'system'];
type Dots = Record<NotificationCategory, boolean>;

/** NOTIF-09 (design): violation red, warning orange, success green, Bullish teal, Bearish red, others gray. */
const COLOR: Record<Notification['type'], string> = {
  violation: 'red',
  warning: 'orange',
  success: 'green',
  others: 'gray',
  Bullish: 'teal',
  Bearish: 'red',
};

function useNow(ms: number) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = window.setInterval(() => setNow(Date.now()), ms);
    return () => window.clearInterval(t);
  }, [ms]);
  return now;
}

function Item({ n, now, onView, onRemove }: { n: Notification; now: number; onView(): void; onRemove(): void }) {
  const Icon = n.type === 'violation' || n.type === 'warning' ? IconAlertTriangle : IconInfoCircle;
  return (
    <Group
      wrap="nowrap"
      align="flex-start"
      gap="sm"
      p="xs"
      data-testid="notification-item"
      data-seen={n.seen ? '1' : '0'}
      style={{
        borderRadius: 6,
        borderLeft: `3px solid var(--mantine-color-${COLOR[n.type]}-6)`,
        background: n.seen ? undefined : 'var(--mantine-color-blue-light)',
      }}
    >
      {n.img ? (
        <Avatar src={avatarUrl(n.img)} size={50} radius="xl" alt="" />
      ) : (
        <Avatar size={50} radius="xl" color={COLOR[n.type]}>
          <Icon size={24} />
        </Avatar>
      )}
      <Box style={{ flex: 1, minWidth: 0 }}>
        <Text size="sm" fw={n.seen ? 500 : 700} lineClamp={1}>
          {n.title}
        </Text>
        <Text size="xs" lineClamp={3}>
          {n.body}
        </Text>
        <Group justify="space-between" mt={4}>
          <Text size="xs" c="dimmed" data-testid="notification-time">
            {relativeTime(n.ts, now)}
          </Text>
          {notificationLink(n) && (
            <Button size="compact-xs" variant="light" onClick={onView}>
              {S.view}
            </Button>
          )}
        </Group>
      </Box>
      <CloseButton size="sm" aria-label={S.close} onClick={onRemove} />
    </Group>
  );
}

/**
 * NOTIF-01..21: the bell and its 400x600 panel. NOTIF-18 (design): a red dot on the bell while any tab has one.
 * NOTIF-32 (design): a failed call changes nothing and shows nothing (the list keeps what it had).
 */
export function NotificationBell({ variant }: { variant: HostVariant }) {
  const navigate = useNavigate();
  const now = useNow(5_000);
  const [opened, setOpened] = useState(false);
  const [tab, setTab] = useState<NotificationCategory | null>(null);
  const [dots, setDots] = useState<Dots>({ sla: false, system: false, trade: false });
  const [items, setItems] = useState<Notification[]>([]);
  const [lastPage, setLastPage] = useState(0);
  const [loading, setLoading] = useState(false);
  const [sound, setSound] = useState(soundPref.get);
  const state = useRef({ opened, tab, sound });
  state.current = { opened, tab, sound };
  const { state: session } = useSession();
  const me = useRef('');
  me.current = session.phase === 'signedIn' ? (session.session.adminUsername ?? '') : '';

  // NOTIF-37: the sound choice may change on the settings page; new messages notify while the tab is hidden.
  useEffect(() => onPrefsChange(() => setSound(soundPref.get())), []);
  useEffect(() => watchMessages(() => me.current), []);
  // NOTIF-06: the bell is on every signed-in screen, so a `?number=` link opens its conversation anywhere.
  useOpenLinkedConversation();

  useEffect(() => {
    notificationsApi
      .check()
      .then((c) =>
        setDots({ sla: c[CHECK_FLAG_OF.sla], system: c[CHECK_FLAG_OF.system], trade: c[CHECK_FLAG_OF.trade] }),
      )
      .catch(() => undefined);
    void registerWebPush();
    return reportFocus();
  }, []);

  const load = useCallback(async (category: NotificationCategory, loaded: Notification[]) => {
    setLoading(true);
    try {
      const page = await notificationsApi.page(category, loaded);
      if (state.current.tab !== category) return;
      setItems([...loaded, ...page]);
      setLastPage(page.length);
    } catch {
      // NOTIF-32: nothing shown.
    } finally {
      setLoading(false);
    }
  }, []);

  // NOTIF-16, NOTIF-17: a pushed notification joins the open tab at the top, else dots its tab.
  useRealtimeEvent('newNotification', (n) => {
    const { opened: isOpen, tab: current, sound: on } = state.current;
    if (isOpen && current === n.category) setItems((list) => (list.some((x) => x.id === n.id) ? list : [n, ...list]));
    else setDots((d) => ({ ...d, [n.category]: true }));
    if (on) void playNotification();
  });

  const select = (next: NotificationCategory) => {
    state.current.tab = next;
    setTab(next);
    setDots((d) => ({ ...d, [next]: false }));
    setItems([]);
    setLastPage(0);
    void load(next, []);
  };

  const open = () => {
    setOpened(true);
    state.current.opened = true;
    // NOTIF-14: the first open selects SLA (Trade on the trading host); later opens reload the last tab.
    select(tab ?? firstNotificationTab(variant));
  };

  // NOTIF-12, NOTIF-21: closing (Escape, outside click, the bell) marks what was shown as seen.
  const close = () => {
    setOpened(false);
    state.current.opened = false;
    const current = state.current.tab;
    const top = items.reduce((m, n) => Math.max(m, n.id), 0);
    if (current && items.some((n) => !n.seen)) {
      notificationsApi
        .read(current, top || undefined)
        .then(() => setItems((list) => list.map((n) => (n.id <= top ? { ...n, seen: true } : n))))
        .catch(() => undefined);
    }
  };

  const remove = (id: number) =>
    notificationsApi
      .remove(id)
      .then(() => setItems((list) => list.filter((n) => n.id !== id)))
      .catch(() => undefined);

  const toggleSound = () => {
    const on = !sound;
    setSound(on);
    soundPref.set(on);
    if (on) void playNotification();
  };

  // NOTIF-21: Escape closes the panel wherever the focus is.
  const closeRef = useRef(close);
  closeRef.current = close;
  useEffect(() => {
    if (!opened) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && closeRef.current();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [opened]);

  const anyDot = dots.sla || dots.system || dots.trade;
  // The dot wraps the whole popover: the target's aria-haspopup/expanded must land on the button itself.
  return (
    <Indicator disabled={!anyDot} color="red" size={9} offset={6} data-testid="notification-bell-dot">
      <Popover
        opened={opened}
        onChange={(o) => (o ? open() : close())}
        onClose={() => opened && close()}
        closeOnEscape
        position="right-end"
        withArrow
        shadow="md"
      >
        <Popover.Target>
          <ActionIcon
            variant="subtle"
            color="gray"
            size="lg"
            aria-label={S.title}
            onClick={() => (opened ? close() : open())}
            data-testid="notification-bell"
          >
            {anyDot ? <IconBellRinging size={20} stroke={1.6} /> : <IconBell size={20} stroke={1.6} />}
          </ActionIcon>
        </Popover.Target>
        <Popover.Dropdown w={400} h={600} p="md" data-testid="notifications-panel" aria-label={S.title}>
          <Stack h="100%" gap="xs">
            <Group justify="space-between">
              <Text fw={600}>{S.title}</Text>
              <Tooltip label={S.sound}>
                <Switch
                  size="sm"
                  checked={sound}
                  onChange={toggleSound}
                  aria-label={S.sound}
                  data-testid="notification-sound"
                  thumbIcon={sound ? <IconVolume size={10} /> : <IconVolumeOff size={10} />}
                />
              </Tooltip>
            </Group>
            <Tabs value={tab} onChange={(v) => v && select(v as NotificationCategory)}>
              <Tabs.List grow>
                {TABS.map((t) => (
                  <Tabs.Tab key={t} value={t} data-testid={`notification-tab-${t}`}>
                    <Indicator
                      disabled={!dots[t]}
                      color="red"
                      size={7}
                      offset={-4}
                      data-testid={`notification-dot-${t}`}
                    >
                      {S.tabs[t]}
                    </Indicator>
                  </Tabs.Tab>
                ))}
              </Tabs.List>
            </Tabs>
            <ScrollArea style={{ flex: 1 }} type="auto">
              <Stack gap={6}>
                {items.map((n) => (
                  <Item
                    key={n.id}
                    n={n}
                    now={now}
                    onView={() => {
                      const to = notificationLink(n);
                      close();
                      if (to) void navigate(to);
                    }}
                    onRemove={() => void remove(n.id)}
                  />
                ))}
                {!loading && items.length === 0 && (
                  <Text c="dimmed" ta="center" mt="xl">
                    {S.empty}
                  </Text>
                )}
                {lastPage >= NOTIFICATION_PAGE_SIZE && (
                  <UnstyledButton
                    ta="center"
                    p="xs"
                    onClick={() => tab && void load(tab, items)}
                    data-testid="notification-more"
                  >
                    <Text size="sm" c="blue">
                      {S.showMore}
                    </Text>
                  </UnstyledButton>
                )}
              </Stack>
            </ScrollArea>
          </Stack>
        </Popover.Dropdown>
      </Popover>
    </Indicator>
  );
}
