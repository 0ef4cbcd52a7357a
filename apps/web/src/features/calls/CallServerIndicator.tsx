import { ActionIcon, Button, Group, Popover, Text, Tooltip } from '@mantine/core';
import { type AuthCheckAnswer, authenticateUrlOf, CALL_STRINGS } from '@parley/contracts';
import { IconPhone } from '@tabler/icons-react';
import { useCallback, useEffect, useState } from 'react';
import { startRinging, stopRinging } from '../../lib/sound';
import { type CallServerState, jssipAgent, watchCallServer } from './callServer';
import { offerIncoming, setRinging } from './incomingCall';

// The ringing sound loops while a call rings.
setRinging({ start: () => void startRinging(), stop: stopRinging });

const COLOR: Record<CallServerState, string> = { connecting: 'orange', connected: 'green', error: 'red' };

/**
 * NAV-38, CALL-09 .. CALL-14: the call-server indicator in the navigation panel, for a user whose SIP line is
 * active (CALL-03) and whose account has a call server. Orange while connecting, green once the line is
 * registered ("Connected to call server."), red on an error with the spec's words, Dismiss, and Authenticate
 * when the server is the account's own rather than the installation's. A click on the red icon retries.
 */
export function CallServerIndicator({ session }: { session: AuthCheckAnswer }) {
  const url = session.sip_ws_url ?? '';
  const active = Boolean(session.sip?.active) && url !== '';
  const number = session.sip?.sip_number ?? '';
  const password = session.sip?.password ?? '';
  const [state, setState] = useState<CallServerState>('connecting');
  const [attempt, setAttempt] = useState(0);
  const [dismissed, setDismissed] = useState(false);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a retry (`attempt`) starts a new connection too.
  useEffect(() => {
    if (!active) return;
    let watch: { stop(): void } | null = null;
    let cancelled = false;
    setState('connecting');
    void jssipAgent({ url, number, password })
      .then((ua) => {
        if (cancelled) return;
        // NAV-16, NAV-17: a call to this line rings in the navigation's Incoming Call entry.
        ua.on('newRTCSession', (e) => {
          if (e.originator === 'remote') offerIncoming(e.session, e.request);
        });
        watch = watchCallServer(() => ua, setState);
      })
      .catch(() => !cancelled && setState('error'));
    return () => {
      cancelled = true;
      watch?.stop();
    };
  }, [active, url, number, password, attempt]);

  const retry = useCallback(() => {
    setDismissed(false);
    setAttempt((n) => n + 1);
  }, []);

  if (!active) return null;
  const authenticate = session.sip_default ? null : authenticateUrlOf(url);
  const icon = (
    <ActionIcon
      variant="subtle"
      color={COLOR[state]}
      size="lg"
      aria-label={
        state === 'connected'
          ? CALL_STRINGS.connected
          : state === 'error'
            ? CALL_STRINGS.failed
            : CALL_STRINGS.connecting
      }
      onClick={state === 'error' ? retry : undefined}
      data-testid="call-server"
      data-state={state}
    >
      <IconPhone size={18} stroke={1.8} />
    </ActionIcon>
  );
  if (state !== 'error')
    return (
      <Tooltip label={state === 'connected' ? CALL_STRINGS.connected : CALL_STRINGS.connecting} position="right">
        {icon}
      </Tooltip>
    );
  return (
    <Popover opened={!dismissed} position="right-end" withArrow shadow="md" width={260} trapFocus={false}>
      <Popover.Target>{icon}</Popover.Target>
      <Popover.Dropdown data-testid="call-server-error">
        <Text size="sm" role="alert">
          {CALL_STRINGS.failed}
        </Text>
        <Group gap="xs" mt="sm" justify="flex-end">
          {authenticate && (
            <Tooltip label={CALL_STRINGS.authenticateHelp} withinPortal={false}>
              <Button
                size="compact-sm"
                variant="light"
                component="a"
                href={authenticate}
                target="_blank"
                rel="noopener"
                data-testid="call-server-authenticate"
              >
                {CALL_STRINGS.authenticate}
              </Button>
            </Tooltip>
          )}
          <Button size="compact-sm" variant="default" onClick={() => setDismissed(true)}>
            {CALL_STRINGS.dismiss}
          </Button>
        </Group>
      </Popover.Dropdown>
    </Popover>
  );
}
