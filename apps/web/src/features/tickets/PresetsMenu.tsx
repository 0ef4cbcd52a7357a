import { ActionIcon, Badge, Button, Group, Menu, Popover, Stack, Text, TextInput } from '@mantine/core';
import { IconBookmark, IconX } from '@tabler/icons-react';
import { useState } from 'react';
import type { TicketFilters } from '../../lib/api/tickets';
import { local } from '../../lib/cookies';
import { useSession } from '../../lib/session';
import { fromPreset, presetKey, savePreset, type TicketPreset, toPreset } from './presets';

/** TICKET-07: saved filter presets of this user on this browser, with how many tickets they matched. */
export function PresetsMenu({
  filters,
  count,
  onApply,
}: {
  filters: TicketFilters;
  count: number | undefined;
  onApply(f: TicketFilters, name: string): void;
}) {
  const { state } = useSession();
  const key = presetKey(state.phase === 'signedIn' ? state.session.userId : undefined);
  const [presets, setPresets] = useState<TicketPreset[]>(() => local.get<TicketPreset[]>(key, []));
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState('');
  const store = (next: TicketPreset[]) => {
    setPresets(next);
    local.set(key, next);
  };

  return (
    <Group gap={4}>
      <Menu position="bottom-end" width={260} shadow="md">
        <Menu.Target>
          <Button variant="default" leftSection={<IconBookmark size={16} />} data-testid="ticket-presets">
            Presets
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          {presets.length === 0 && <Menu.Item disabled>No saved presets yet.</Menu.Item>}
          {presets.map((p) => (
            <Menu.Item
              key={p.name}
              onClick={() => onApply(fromPreset(p), p.name)}
              rightSection={
                <Group gap={4} wrap="nowrap">
                  <Badge size="sm" variant="light" color="gray">
                    {p.count}
                  </Badge>
                  <ActionIcon
                    size="sm"
                    variant="subtle"
                    color="gray"
                    aria-label={`Delete preset ${p.name}`}
                    onClick={(e) => {
                      e.stopPropagation();
                      store(presets.filter((x) => x.name !== p.name));
                    }}
                  >
                    <IconX size={12} />
                  </ActionIcon>
                </Group>
              }
            >
              {p.name}
            </Menu.Item>
          ))}
        </Menu.Dropdown>
      </Menu>
      <Popover opened={naming} onChange={setNaming} position="bottom-end" shadow="md" width={260} trapFocus>
        <Popover.Target>
          <Button variant="subtle" onClick={() => setNaming((o) => !o)}>
            Save filters
          </Button>
        </Popover.Target>
        <Popover.Dropdown aria-label="Save filters">
          <Stack gap="xs">
            <TextInput
              label="Preset name"
              value={name}
              maxLength={60}
              onChange={(e) => setName(e.currentTarget.value)}
              data-autofocus
            />
            <Text size="xs" c="dimmed">
              Kept on this browser for you. Saving under the same name replaces it.
            </Text>
            <Button
              disabled={name.trim() === ''}
              onClick={() => {
                store(savePreset(presets, toPreset(name, filters, count ?? 0)));
                setName('');
                setNaming(false);
              }}
            >
              Save preset
            </Button>
          </Stack>
        </Popover.Dropdown>
      </Popover>
    </Group>
  );
}
