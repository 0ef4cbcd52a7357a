import { ActionIcon, Badge, Button, Checkbox, Group, Table, TextInput } from '@mantine/core';
import { TICKET_STATUS_NAMES, type TicketCustomStatus } from '@parley/contracts';
import { IconCheck, IconPencil, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { ticketStatusesApi, useTicketStatuses } from '../../lib/api/ticketStatuses';
import { ticketKeys } from '../../lib/queryKeys';
import { useWrite } from '../../lib/useWrite';
import { SettingsCard } from '../../ui/SettingsCard';
import { T } from './strings';

/** Admin: the account's custom ticket statuses beside the four defaults. */
export function TicketStatusesCard() {
  const custom = useTicketStatuses();
  const [name, setName] = useState('');
  const [open, setOpen] = useState(true);
  const [editing, setEditing] = useState<{ id: number; name: string; open: boolean } | null>(null);
  const { run, error } = useWrite({ invalidate: ticketKeys.statuses });

  const kind = (c: Pick<TicketCustomStatus, 'alternate'>) => (c.alternate === '0' ? T.countsOpen : T.countsClosed);

  return (
    <SettingsCard title={T.statusesTitle} hint={T.statusesHelp} error={error}>
      <Table>
        <Table.Tbody>
          {Object.entries(TICKET_STATUS_NAMES).map(([code, label]) => (
            <Table.Tr key={code}>
              <Table.Td w={50}>{code}</Table.Td>
              <Table.Td>{label}</Table.Td>
              <Table.Td>
                <Badge variant="light" color="gray" tt="none">
                  {T.builtIn}
                </Badge>
              </Table.Td>
              <Table.Td w={90} />
            </Table.Tr>
          ))}
          {custom.map((c) => (
            <Table.Tr key={c.id} data-testid="ticket-status-row">
              <Table.Td>{c.status_code}</Table.Td>
              <Table.Td>
                {editing?.id === c.id ? (
                  <Group gap="xs">
                    <TextInput
                      aria-label={`New name for ${c.name}`}
                      value={editing.name}
                      maxLength={40}
                      onChange={(e) => setEditing({ ...editing, name: e.currentTarget.value })}
                    />
                    <Checkbox
                      label={T.countsOpen}
                      checked={editing.open}
                      onChange={(e) => setEditing({ ...editing, open: e.currentTarget.checked })}
                    />
                  </Group>
                ) : (
                  c.name
                )}
              </Table.Td>
              <Table.Td>
                <Badge variant="light" color={c.alternate === '0' ? 'teal' : 'gray'} tt="none">
                  {kind(c)}
                </Badge>
              </Table.Td>
              <Table.Td>
                <Group gap={4} wrap="nowrap">
                  {editing?.id === c.id ? (
                    <ActionIcon
                      variant="subtle"
                      aria-label={`Save ${c.name}`}
                      onClick={async () => {
                        const ok = await run(() =>
                          ticketStatusesApi.update(c.id, editing.name, editing.open ? '0' : '1'),
                        );
                        if (ok) setEditing(null);
                      }}
                    >
                      <IconCheck size={16} />
                    </ActionIcon>
                  ) : (
                    <ActionIcon
                      variant="subtle"
                      aria-label={`Edit ${c.name}`}
                      onClick={() => setEditing({ id: c.id, name: c.name, open: c.alternate === '0' })}
                    >
                      <IconPencil size={16} />
                    </ActionIcon>
                  )}
                  <ActionIcon
                    variant="subtle"
                    color="red"
                    aria-label={`Delete ${c.name}`}
                    onClick={() => run(() => ticketStatusesApi.remove(c.id))}
                  >
                    <IconTrash size={16} />
                  </ActionIcon>
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          if (await run(() => ticketStatusesApi.create(name, open ? '0' : '1'))) setName('');
        }}
      >
        <Group align="end">
          <TextInput label={T.newStatus} value={name} maxLength={40} onChange={(e) => setName(e.currentTarget.value)} />
          <Checkbox label={T.countsOpen} checked={open} onChange={(e) => setOpen(e.currentTarget.checked)} mb={8} />
          <Button type="submit">{T.addStatus}</Button>
        </Group>
      </form>
    </SettingsCard>
  );
}
