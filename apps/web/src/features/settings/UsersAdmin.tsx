import {
  Alert,
  Badge,
  Button,
  Group,
  Modal,
  MultiSelect,
  NumberInput,
  PasswordInput,
  Select,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
} from '@mantine/core';
import { CreateUserInput, PERMISSIONS, USER_TYPES, type UserItem, type UserType } from '@parley/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useDepartments } from '../../lib/api/departments';
import { errorText } from '../../lib/http';
import { settingsKeys } from '../../lib/queryKeys';
import { SettingsCard } from '../../ui/SettingsCard';
import { settingsApi } from './api';
import { t } from './strings';

const typeOptions = USER_TYPES.map((v) => ({ value: v, label: v[0]?.toUpperCase() + v.slice(1) }));
const permissionOptions = PERMISSIONS.map((p) => ({ value: p, label: p }));
const errorOf = (err: unknown) => (err ? errorText(err) : null);

/** Admins add users, change their type, rank and permissions, and deactivate them. */
export function UsersAdmin({ me }: { me: number | undefined }) {
  const departmentList = useDepartments();
  const departmentNames = new Map((departmentList.data ?? []).map((d) => [d.id, d.name]));
  const qc = useQueryClient();
  const users = useQuery({ queryKey: settingsKeys.users, queryFn: settingsApi.users });
  const [editing, setEditingState] = useState<UserItem | 'new' | null>(null);
  // The title stays while the modal fades out after a save.
  const [title, setTitle] = useState('');
  const setEditing = (e: UserItem | 'new' | null) => {
    if (e) setTitle(e === 'new' ? t.newUser : 'Edit user');
    setEditingState(e);
  };
  const done = () => {
    setEditing(null);
    void qc.invalidateQueries({ queryKey: settingsKeys.users });
  };

  return (
    <>
      <SettingsCard title={t.users} aside={<Button onClick={() => setEditing('new')}>{t.newUser}</Button>}>
        <Table.ScrollContainer minWidth={640}>
          <Table highlightOnHover verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Username</Table.Th>
                <Table.Th>Type</Table.Th>
                <Table.Th>Rank</Table.Th>
                <Table.Th>Permissions</Table.Th>
                <Table.Th>Departments</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {users.data?.data.map((u) => (
                <Table.Tr key={u.id} data-testid="user-row" opacity={u.active ? 1 : 0.55}>
                  <Table.Td>
                    <Group gap="xs">
                      <Text size="sm">{u.name}</Text>
                      {!u.active && (
                        <Badge size="xs" color="gray">
                          {t.inactive}
                        </Badge>
                      )}
                      {u.tfa_enabled && (
                        <Badge size="xs" variant="dot">
                          2FA
                        </Badge>
                      )}
                    </Group>
                  </Table.Td>
                  <Table.Td>{u.username}</Table.Td>
                  <Table.Td>{u.type}</Table.Td>
                  <Table.Td>{u.rank}</Table.Td>
                  <Table.Td>
                    <Text size="xs" c="dimmed">
                      {u.permission.join(', ') || '—'}
                    </Text>
                  </Table.Td>
                  <Table.Td data-testid="user-departments">
                    <Text size="xs">
                      {u.departments
                        .map((id) => departmentNames.get(id))
                        .filter(Boolean)
                        .join(', ') || '—'}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Button size="xs" variant="subtle" onClick={() => setEditing(u)}>
                      Edit
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </SettingsCard>
      <Modal opened={editing !== null} onClose={() => setEditing(null)} title={title} centered>
        {editing === 'new' && <NewUserForm onDone={done} />}
        {editing && editing !== 'new' && <EditUserForm user={editing} self={editing.id === me} onDone={done} />}
      </Modal>
    </>
  );
}

function NewUserForm({ onDone }: { onDone(): void }) {
  const [form, setForm] = useState({ username: '', name: '', email: '', password: '', type: 'agent' as UserType });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const create = useMutation({ mutationFn: settingsApi.createUser, onSuccess: onDone });
  const set = (k: keyof typeof form) => (e: { currentTarget: { value: string } }) =>
    setForm({ ...form, [k]: e.currentTarget.value });
  function submit() {
    const parsed = CreateUserInput.safeParse(form);
    if (!parsed.success) {
      const next: Record<string, string> = {};
      for (const i of parsed.error.issues) next[String(i.path[0])] ??= i.message;
      return setErrors(next);
    }
    setErrors({});
    create.mutate(parsed.data);
  }
  return (
    <Stack>
      {create.error && (
        <Alert color="red" variant="light" role="alert">
          {errorOf(create.error)}
        </Alert>
      )}
      <TextInput label="Name" value={form.name} onChange={set('name')} error={errors.name} />
      <TextInput label="Username" value={form.username} onChange={set('username')} error={errors.username} />
      <TextInput label="E-mail" value={form.email} onChange={set('email')} error={errors.email} />
      <PasswordInput label="Password" value={form.password} onChange={set('password')} error={errors.password} />
      <Select
        label="Type"
        data={typeOptions}
        value={form.type}
        allowDeselect={false}
        onChange={(v) => v && setForm({ ...form, type: v as UserType })}
      />
      <Button onClick={submit} loading={create.isPending}>
        {t.newUser}
      </Button>
    </Stack>
  );
}

function EditUserForm({ user, self, onDone }: { user: UserItem; self: boolean; onDone(): void }) {
  const [type, setType] = useState<UserType>(user.type);
  const [rank, setRank] = useState<number>(user.rank);
  const [permission, setPermission] = useState<string[]>(user.permission);
  const [active, setActive] = useState(user.active);
  const [departments, setDepartments] = useState<string[]>(user.departments.map(String));
  const allDepartments = useDepartments();
  const save = useMutation({
    mutationFn: () =>
      settingsApi.updateUser(user.id, {
        type,
        rank,
        permission: permission as (typeof PERMISSIONS)[number][],
        departments: departments.map(Number),
        active,
      }),
    onSuccess: onDone,
  });
  return (
    <Stack>
      {save.error && (
        <Alert color="red" variant="light" role="alert">
          {errorOf(save.error)}
        </Alert>
      )}
      <Text fw={600}>
        {user.name} ({user.username})
      </Text>
      <Select
        label="Type"
        data={typeOptions}
        value={type}
        allowDeselect={false}
        onChange={(v) => v && setType(v as UserType)}
      />
      <NumberInput label="Rank" min={0} max={100} value={rank} onChange={(v) => setRank(Number(v) || 0)} />
      <MultiSelect label="Permissions" data={permissionOptions} value={permission} onChange={setPermission} clearable />
      <MultiSelect
        label="Departments"
        data={(allDepartments.data ?? []).map((d) => ({ value: String(d.id), label: d.name }))}
        value={departments}
        onChange={setDepartments}
        clearable
        nothingFoundMessage="Add departments in Settings → Departments"
      />
      <Switch label="Active" checked={active} disabled={self} onChange={(e) => setActive(e.currentTarget.checked)} />
      <Button onClick={() => save.mutate()} loading={save.isPending}>
        {t.save}
      </Button>
    </Stack>
  );
}
