import { Select, Stack, Switch, Table, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useDepartments } from '../../lib/api/departments';
import { ticketsApi } from '../../lib/api/tickets';
import { ticketKeys } from '../../lib/queryKeys';
import { SettingsCard } from '../../ui/SettingsCard';
import { T } from './strings';
import { TicketStatusesCard } from './TicketStatusesCard';

/** Per department: automatic assignment of new tickets (off, round robin, least loaded); popup_on_call. */
function AssignmentCard() {
  const qc = useQueryClient();
  const departments = useDepartments();
  const auto = useQuery({ queryKey: ticketKeys.autoAssign, queryFn: ticketsApi.autoAssign });
  const settings = useQuery({ queryKey: ticketKeys.settings, queryFn: ticketsApi.settings });
  const strategyOf = (id: number) => auto.data?.find((x) => x.department_id === id)?.strategy ?? '';
  return (
    <SettingsCard title={T.autoAssignTitle} hint={T.autoAssignHelp}>
      {departments.data?.length === 0 && <Text size="sm">No departments yet.</Text>}
      <Table>
        <Table.Tbody>
          {(departments.data ?? []).map((d) => (
            <Table.Tr key={d.id}>
              <Table.Td>{d.name}</Table.Td>
              <Table.Td w={200}>
                <Select
                  size="xs"
                  aria-label={`Automatic assignment for ${d.name}`}
                  data={[
                    { value: '', label: T.autoOff },
                    { value: 'round_robin', label: T.roundRobin },
                    { value: 'least_loaded', label: T.leastLoaded },
                  ]}
                  value={strategyOf(d.id)}
                  allowDeselect={false}
                  onChange={async (v) => {
                    await ticketsApi.setAutoAssign({
                      department_id: d.id,
                      strategy: v === 'round_robin' || v === 'least_loaded' ? v : null,
                    });
                    await qc.invalidateQueries({ queryKey: ticketKeys.autoAssign });
                  }}
                />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Switch
        label="Pop up call tickets for agents (popup_on_call)"
        checked={settings.data?.popup_on_call === 1}
        onChange={async (e) => {
          await ticketsApi.saveSettings({ popup_on_call: e.currentTarget.checked ? 1 : 0 });
          await qc.invalidateQueries({ queryKey: ticketKeys.settings });
        }}
      />
    </SettingsCard>
  );
}

/** Settings → Tickets (admin): custom ticket statuses and per-department automatic assignment. */
export function TicketSettings() {
  return (
    <Stack>
      <TicketStatusesCard />
      <AssignmentCard />
    </Stack>
  );
}
