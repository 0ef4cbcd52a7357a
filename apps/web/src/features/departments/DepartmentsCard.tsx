import { ActionIcon, Button, Group, Table, Text, TextInput } from '@mantine/core';
import { IconCheck, IconPencil, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { departmentsApi, useDepartments } from '../../lib/api/departments';
import { departmentsKey } from '../../lib/queryKeys';
import { useWrite } from '../../lib/useWrite';
import { SettingsCard } from '../../ui/SettingsCard';

/** Admin: the account's departments. Users join them in Users; tickets are routed by them. */
export function DepartmentsCard() {
  const list = useDepartments();
  const [name, setName] = useState('');
  const [editing, setEditing] = useState<{ id: number; name: string } | null>(null);
  const { run, error } = useWrite({ invalidate: departmentsKey });

  return (
    <SettingsCard
      title="Departments"
      hint="Teams of your workspace. Put agents in departments under Users; tickets are routed to a department."
      error={error}
    >
      {list.data?.length === 0 && <Text size="sm">No departments yet.</Text>}
      {Boolean(list.data?.length) && (
        <Table>
          <Table.Tbody>
            {list.data?.map((d) => (
              <Table.Tr key={d.id} data-testid="department-row">
                <Table.Td>
                  {editing?.id === d.id ? (
                    <TextInput
                      aria-label={`New name for ${d.name}`}
                      value={editing.name}
                      maxLength={60}
                      onChange={(e) => setEditing({ id: d.id, name: e.currentTarget.value })}
                    />
                  ) : (
                    d.name
                  )}
                </Table.Td>
                <Table.Td w={90}>
                  <Group gap={4} justify="flex-end" wrap="nowrap">
                    {editing?.id === d.id ? (
                      <ActionIcon
                        variant="subtle"
                        aria-label={`Save ${d.name}`}
                        onClick={async () => {
                          if (await run(() => departmentsApi.rename(d.id, editing.name))) setEditing(null);
                        }}
                      >
                        <IconCheck size={16} />
                      </ActionIcon>
                    ) : (
                      <ActionIcon
                        variant="subtle"
                        color="gray"
                        aria-label={`Rename ${d.name}`}
                        onClick={() => setEditing({ id: d.id, name: d.name })}
                      >
                        <IconPencil size={16} />
                      </ActionIcon>
                    )}
                    <ActionIcon
                      variant="subtle"
                      color="red"
                      aria-label={`Delete ${d.name}`}
                      onClick={() => {
                        if (window.confirm(`Delete the department ${d.name}? Its tickets keep their history.`))
                          void run(() => departmentsApi.remove(d.id));
                      }}
                    >
                      <IconTrash size={16} />
                    </ActionIcon>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <Group align="flex-end">
        <TextInput
          label="New department"
          value={name}
          maxLength={60}
          onChange={(e) => setName(e.currentTarget.value)}
        />
        <Button
          disabled={name.trim() === ''}
          onClick={async () => {
            if (await run(() => departmentsApi.create(name.trim()))) setName('');
          }}
        >
          Add department
        </Button>
      </Group>
    </SettingsCard>
  );
}
