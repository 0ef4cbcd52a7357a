import { Alert, Anchor, Button, Group, Text } from '@mantine/core';
import {
  type Announcement,
  type AnnouncementMessage,
  type AuthCheckAnswer,
  effectiveStatus,
  LOCAL_KEYS,
  SHELL_STRINGS,
  statusLabel,
} from '@parley/contracts';
import { IconMicrophoneOff, IconSpeakerphone, IconWifiOff } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, type ReactNode, Suspense, useEffect, useState } from 'react';
import { ExpiredNotice } from '../../features/plans/ExpiredNotice';
import { useMyStatus } from '../../features/status/presence';
import { statusApi } from '../../lib/api/status';
import { local } from '../../lib/cookies';
import { api } from '../../lib/http';
import { announcementKey, statusKeys } from '../../lib/queryKeys';
import { realtime, useRealtimeEvent } from '../../lib/realtime';
import { shell } from '../../lib/shellStore';
import { useConnected } from '../../lib/useConnected';
import { type SipProblem, useSipProblem } from './useSipProblem';

// LIVECHAT-03: the incoming live chats banner with Take one.
const IncomingLiveChats = lazy(() =>
  import('../../features/livechat/LiveChatsScreen').then((m) => ({ default: m.IncomingLiveChats })),
);

function Banner({
  color,
  icon,
  children,
  actions,
  testId,
}: {
  color: string;
  icon?: ReactNode;
  children: ReactNode;
  actions: ReactNode;
  testId: string;
}) {
  return (
    <Alert color={color} variant="light" role="status" data-testid={testId} icon={icon} py={8}>
      <Group justify="space-between" gap="sm" wrap="wrap">
        <Text size="sm">{children}</Text>
        <Group gap="xs">{actions}</Group>
      </Group>
    </Alert>
  );
}

/** SHELL-36: shown when the socket has been down for a moment (not during the first connect). */
function ConnectionBanner() {
  const connected = useConnected();
  const [show, setShow] = useState(false);
  useEffect(() => {
    if (connected) {
      setShow(false);
      return;
    }
    const t = window.setTimeout(() => setShow(true), 2_000);
    return () => window.clearTimeout(t);
  }, [connected]);
  if (!show) return null;
  return (
    <Banner
      color="red"
      icon={<IconWifiOff size={18} />}
      testId="banner-connection"
      actions={
        <Button size="xs" color="red.9" onClick={() => (realtime.isOpen() ? realtime.reconnect() : realtime.connect())}>
          {SHELL_STRINGS.reconnect}
        </Button>
      }
    >
      {SHELL_STRINGS.noConnection}
    </Banner>
  );
}

/** STATUS-15, STATUS-16: while my chosen status is not Online, Go Online sets it back. */
function CustomStatusBanner() {
  const me = useMyStatus();
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  if (!me.data) return null;
  const s = effectiveStatus(me.data);
  if (s === 'ONLINE' || s === 'OFFLINE') return null;
  async function goOnline() {
    setBusy(true);
    try {
      await statusApi.update({ status: 'ONLINE', reason: '' });
      await qc.invalidateQueries({ queryKey: statusKeys.me });
    } catch (err) {
      shell.showFailure(SHELL_STRINGS.statusNotChanged, err);
    } finally {
      setBusy(false);
    }
  }
  return (
    <Banner
      color="yellow"
      testId="banner-status"
      actions={
        <Button size="xs" color="teal.9" loading={busy} onClick={goOnline}>
          {SHELL_STRINGS.goOnline}
        </Button>
      }
    >
      Your status is <b>{statusLabel(s)}</b>
      {me.data.reason ? ` (${me.data.reason})` : ''}. Chats are not routed to you.
    </Banner>
  );
}

/** SHELL-37, SHELL-38: the account's announcement; dismissing hides that one announcement on this browser. */
function AnnouncementBanner() {
  const qc = useQueryClient();
  const q = useQuery({
    queryKey: announcementKey,
    queryFn: () =>
      api<{ announcement: Announcement | null }>('GET', '/api/announcement').then((r) => r.announcement ?? null),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const [dismissed, setDismissed] = useState<number | null>(() => local.get(LOCAL_KEYS.dismissedAnnouncement, null));
  const connected = useConnected();
  useEffect(() => {
    if (!connected) return;
    realtime
      .request<AnnouncementMessage>('getAnnouncement')
      .then((r) => qc.setQueryData(announcementKey, r.announcement))
      .catch(() => undefined);
  }, [connected, qc]);
  useRealtimeEvent('announcementMessage', (data) => qc.setQueryData(announcementKey, data.announcement));
  const a = q.data;
  if (!a || a.id === dismissed || (a.expires_at !== null && a.expires_at < Date.now())) return null;
  return (
    <Banner
      color={a.level === 'warning' ? 'orange' : 'blue'}
      icon={<IconSpeakerphone size={18} />}
      testId="banner-announcement"
      actions={
        <Button
          size="xs"
          variant="default"
          onClick={() => {
            setDismissed(a.id);
            local.set(LOCAL_KEYS.dismissedAnnouncement, a.id);
          }}
        >
          {SHELL_STRINGS.dismiss}
        </Button>
      }
    >
      {a.message}
    </Banner>
  );
}

/** NOTIF-33: "Click here to enable browser notification" asks the browser; "No thanks" is remembered here. */
function NotificationPrompt() {
  const [answered, setAnswered] = useState(() => local.get<string | null>(LOCAL_KEYS.notificationPrompt, null));
  const supported = typeof window !== 'undefined' && 'Notification' in window;
  const open = supported && !answered && Notification.permission === 'default';
  // NOTIF-34: the first time the window gets focus, the browser is asked, unless "No thanks" was said here.
  useEffect(() => {
    if (!open) return;
    const ask = async () => {
      window.removeEventListener('focus', ask);
      const r = await Notification.requestPermission().catch(() => 'default' as const);
      if (r === 'default') return; // dismissed without an answer: the banner stays
      local.set(LOCAL_KEYS.notificationPrompt, r);
      setAnswered(r);
    };
    window.addEventListener('focus', ask);
    return () => window.removeEventListener('focus', ask);
  }, [open]);
  if (!open) return null;
  return (
    <Banner
      color="gray"
      testId="banner-notifications"
      actions={
        <Button
          size="xs"
          variant="default"
          onClick={() => {
            local.set(LOCAL_KEYS.notificationPrompt, 'no');
            setAnswered('no');
          }}
        >
          {SHELL_STRINGS.notificationNoThanks}
        </Button>
      }
    >
      <Anchor
        component="button"
        type="button"
        size="sm"
        c="var(--mantine-color-text)"
        underline="always"
        fw={500}
        onClick={async () => {
          const r = await Notification.requestPermission().catch(() => 'default');
          local.set(LOCAL_KEYS.notificationPrompt, r);
          setAnswered(r);
        }}
      >
        {SHELL_STRINGS.notificationPrompt}
      </Anchor>
    </Banner>
  );
}

const SIP_TEXT: Record<SipProblem, string> = {
  insecure: SHELL_STRINGS.sipInsecure,
  blocked: SHELL_STRINGS.sipMicBlocked,
  noMic: SHELL_STRINGS.sipNoMic,
};

/** CALL-04, CALL-05: the SIP message: the line is active but the phone cannot work in this browser. */
function SipBanner({ session }: { session: AuthCheckAnswer }) {
  const { problem, dismiss } = useSipProblem(session);
  if (!problem) return null;
  return (
    <Banner
      color="orange"
      icon={<IconMicrophoneOff size={18} />}
      testId="banner-sip"
      actions={
        <Button size="xs" variant="default" onClick={dismiss}>
          {SHELL_STRINGS.dismiss}
        </Button>
      }
    >
      <span data-problem={problem}>{SIP_TEXT[problem]}</span>
    </Banner>
  );
}

/** SHELL-63, SHELL-64: the server runs a newer version than this page was built from. */
function UpdateBar({ version }: { version: AuthCheckAnswer['version'] }) {
  if (!version || version.id === __APP_VERSION__) return null;
  return (
    <Banner
      color="indigo"
      testId="banner-update"
      actions={
        <Button size="xs" onClick={() => window.location.reload()}>
          {SHELL_STRINGS.refresh}
        </Button>
      }
    >
      {SHELL_STRINGS.updateAvailable}
      {version.description || version.id}
    </Banner>
  );
}

/** Every banner above the screens, most urgent first. */
export function Banners({ session }: { session: AuthCheckAnswer }) {
  return (
    <>
      <ConnectionBanner />
      <UpdateBar version={session.version} />
      <ExpiredNotice expired={session.expired} />
      <AnnouncementBanner />
      <CustomStatusBanner />
      <SipBanner session={session} />
      <NotificationPrompt />
      <Suspense fallback={null}>
        <IncomingLiveChats />
      </Suspense>
    </>
  );
}
