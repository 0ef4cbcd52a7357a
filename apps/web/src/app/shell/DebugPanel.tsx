import { Button, Code, Drawer, Group, Table } from '@mantine/core';
import type { AuthCheckAnswer } from '@parley/contracts';
import { useState } from 'react';
import { realtime } from '../../lib/realtime';
import { shell, useShell } from '../../lib/shellStore';
import { playNotification } from '../../lib/sound';
import { useConnected } from '../../lib/useConnected';

/** alt+shift+d: what support asks for when something looks wrong. Never shows tokens. */
export function DebugPanel({ session }: { session: AuthCheckAnswer }) {
  const opened = useShell((s) => s.debugOpen);
  const [crash, setCrash] = useState(false);
  // Support can check that the crash page shows (and what it shows) without waiting for a real crash.
  if (crash) throw new Error('Crash simulated from the debug panel');
  const connected = useConnected();
  const rows: [string, string][] = [
    ['Version (page)', __APP_VERSION__],
    ['Version (server)', session.version?.id ?? '?'],
    ['Account', String(session.accountId ?? '?')],
    ['User', `${session.adminUsername} (${session.userId}, ${session.type})`],
    ['Host variant', session.productDetails?.variant ?? '?'],
    ['Plan', String(session.plan)],
    ['Socket', connected ? 'connected' : 'disconnected'],
    ['Last event applied', String(realtime.lastApplied() ?? '-')],
    ['User agent', navigator.userAgent],
  ];
  return (
    <Drawer opened={opened} onClose={() => shell.set({ debugOpen: false })} title="Debug" position="right">
      <Table>
        <Table.Tbody>
          {rows.map(([k, v]) => (
            <Table.Tr key={k}>
              <Table.Th>{k}</Table.Th>
              <Table.Td>
                <Code>{v}</Code>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Group mt="md">
        <Button variant="default" onClick={() => void playNotification()}>
          Play the notification sound
        </Button>
        <Button variant="default" color="red" onClick={() => setCrash(true)}>
          Simulate a crash
        </Button>
      </Group>
    </Drawer>
  );
}
