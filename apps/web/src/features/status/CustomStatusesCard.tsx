import { ActionIcon, Alert, Button, Card, Checkbox, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { IconTrash } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { HttpError } from '../../lib/http';
import { statusApi, statusKeys } from './api';
import { useCustomStatuses } from './presence';
import { t } from './strings';

/** STATUS-17: the account's own statuses, beside the built-in ones. Admins only. */
export function CustomStatusesCard() {
  const list = useCustomStatuses();
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [needsReason, setNeedsReason] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function run(fn: () => Promise<unknown>) {
    setError(null);
    try {
      await fn();
      await qc.invalidateQueries({ queryKey: statusKeys.custom });
    } catch (err) {
      setError(err instanceof HttpError ? err.description : 'Failed');
    }
  }

  return (
    <Card withBorder radius="md" padding="lg">
      <Stack>
        <Title order={3} size="h4">
          {t.customStatuses}
        </Title>
        <Text size="sm" c="dimmed">
          {t.customStatusesHint}
        </Text>
        {error && (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        {list.data?.length === 0 && <Text size="sm">{t.noCustom}</Text>}
        {Boolean(list.data?.length) && (
          <Table>
            <Table.Tbody>
              {list.data?.map((c) => (
                <Table.Tr key={c.id}>
                  <Table.Td>{c.name}</Table.Td>
                  <Table.Td>{c.needs_reason ? t.needsReason : ''}</Table.Td>
                  <Table.Td w={40}>
                    <ActionIcon
                      variant="subtle"
                      color="red"
                      aria-label={`${t.remove} ${c.name}`}
                      onClick={() => run(() => statusApi.deleteCustomStatus(c.id))}
                    >
                      <IconTrash size={16} />
                    </ActionIcon>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
        <Group align="flex-end">
          <TextInput label={t.name} value={name} maxLength={40} onChange={(e) => setName(e.currentTarget.value)} />
          <Checkbox
            label={t.needsReason}
            checked={needsReason}
            onChange={(e) => setNeedsReason(e.currentTarget.checked)}
            mb={8}
          />
          <Button
            disabled={name.trim() === ''}
            onClick={() =>
              run(async () => {
                await statusApi.createCustomStatus({ name: name.trim(), needs_reason: needsReason });
                setName('');
                setNeedsReason(false);
              })
            }
          >
            {t.addStatus}
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
