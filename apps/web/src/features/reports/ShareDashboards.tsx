import { ActionIcon, Button, Code, CopyButton, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { DASHBOARD_STRINGS as D } from '@parley/contracts';
import { IconTrash } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { formatDateTime } from '../../lib/dates';
import { errorText } from '../../lib/http';
import { reportKeys } from '../../lib/queryKeys';
import { dashboardsApi } from './api';

/**
 * SHELL-07, SHELL-08: the account's public dashboard links. A new link is shown once, with Copy (only its
 * hash is kept); each listed link can be removed, which stops it at once.
 */
export function ShareDashboards({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [made, setMade] = useState<string | null>(null);
  const list = useQuery({ queryKey: reportKeys.dashboards, queryFn: dashboardsApi.list, enabled: opened });
  const create = useMutation({
    mutationFn: () => dashboardsApi.create(name),
    onSuccess: (r) => {
      setMade(`${window.location.origin}/dashboard/${r.token}`);
      setName('');
      void client.invalidateQueries({ queryKey: reportKeys.dashboards });
    },
  });
  const remove = useMutation({
    mutationFn: (id: number) => dashboardsApi.remove(id),
    onSettled: () => void client.invalidateQueries({ queryKey: reportKeys.dashboards }),
  });
  const close = () => {
    setMade(null);
    create.reset();
    onClose();
  };
  return (
    <Modal opened={opened} onClose={close} title={D.title} size="lg">
      <Stack gap="sm" data-testid="dashboard-share">
        <Text size="sm" c="dimmed">
          {D.intro}
        </Text>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate();
          }}
        >
          <Group align="flex-end" gap="sm" wrap="nowrap">
            <TextInput
              label={D.name}
              placeholder={D.namePlaceholder}
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              error={create.error ? errorText(create.error) : null}
              style={{ flex: 1 }}
              data-testid="dashboard-name"
            />
            <Button type="submit" loading={create.isPending}>
              {D.create}
            </Button>
          </Group>
        </form>
        {made && (
          <Stack gap={4} data-testid="dashboard-made">
            <Text size="sm" fw={500}>
              {D.created}
            </Text>
            <Group gap="xs" wrap="nowrap">
              <Code style={{ flex: 1, overflowWrap: 'anywhere' }} data-testid="dashboard-link">
                {made}
              </Code>
              <CopyButton value={made}>
                {({ copied, copy }) => (
                  <Button size="xs" variant="light" onClick={copy}>
                    {copied ? D.copied : D.copy}
                  </Button>
                )}
              </CopyButton>
            </Group>
          </Stack>
        )}
        {list.data?.length === 0 && (
          <Text size="sm" c="dimmed">
            {D.none}
          </Text>
        )}
        {list.data?.map((d) => (
          <Group key={d.id} justify="space-between" wrap="nowrap" data-testid="dashboard-row">
            <div>
              <Text size="sm" fw={500}>
                {d.name}
              </Text>
              <Text size="xs" c="dimmed">
                {`${d.created_by} · ${formatDateTime(d.created_at)}`}
              </Text>
            </div>
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={`${D.remove} ${d.name}`}
              loading={remove.isPending && remove.variables === d.id}
              onClick={() => remove.mutate(d.id)}
            >
              <IconTrash size={16} />
            </ActionIcon>
          </Group>
        ))}
      </Stack>
    </Modal>
  );
}
