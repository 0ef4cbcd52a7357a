import { ActionIcon, Button, Checkbox, Group, Table, Text, TextInput } from '@mantine/core';
import { IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { statusApi } from '../../lib/api/status';
import { statusKeys } from '../../lib/queryKeys';
import { useWrite } from '../../lib/useWrite';
import { SettingsCard } from '../../ui/SettingsCard';
import { useCustomStatuses } from './presence';
import { t } from './strings';

/** STATUS-17: the account's own statuses, beside the built-in ones. Admins only. */
export function CustomStatusesCard() {
  const list = useCustomStatuses();
  const [name, setName] = useState('');
  const [needsReason, setNeedsReason] = useState(false);
  const { run, error } = useWrite({ invalidate: statusKeys.custom });

  return (
    <SettingsCard title={t.customStatuses} hint={t.customStatusesHint} error={error}>
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
    </SettingsCard>
  );
}
