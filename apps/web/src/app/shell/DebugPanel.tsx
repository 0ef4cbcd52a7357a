import { Code, Drawer, Table } from '@mantine/core';
import type { AuthCheckAnswer } from '@parley/contracts';
import { realtime } from '../../lib/realtime';
import { shell, useShell } from './shellStore';
import { useConnected } from './useConnected';

/** alt+shift+d: what support asks for when something looks wrong. Never shows tokens. */
export function DebugPanel({ session }: { session: AuthCheckAnswer }) {
  const opened = useShell((s) => s.debugOpen);
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
    </Drawer>
  );
}
