import { Group, Select, TextInput } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import type { SearchField, TicketFilters } from '../../lib/api/tickets';
import { T } from './strings';

/**
 * TICKET-30 `field` + `fieldValue`: the list's search. By default it reads the title, or the exact ticket
 * number when only digits are typed; the field choice searches the customer's name, e-mail or phone instead.
 */
export function TicketSearch({ filters, onChange }: { filters: TicketFilters; onChange(f: TicketFilters): void }) {
  const field = filters.searchField;
  return (
    <Group gap={0} wrap="nowrap">
      <Select
        aria-label={T.searchIn}
        w={130}
        data={[
          { value: '', label: T.searchFields[''] },
          { value: 'name', label: T.searchFields.name },
          { value: 'email', label: T.searchFields.email },
          { value: 'phone', label: T.searchFields.phone },
        ]}
        value={field}
        allowDeselect={false}
        onChange={(v) => onChange({ ...filters, searchField: (v ?? '') as SearchField })}
        styles={{ input: { borderTopRightRadius: 0, borderBottomRightRadius: 0 } }}
      />
      <TextInput
        aria-label="Search tickets"
        placeholder={T.searchPlaceholder[field]}
        leftSection={<IconSearch size={16} />}
        value={filters.search}
        onChange={(e) => onChange({ ...filters, search: e.currentTarget.value })}
        styles={{ input: { borderTopLeftRadius: 0, borderBottomLeftRadius: 0, marginLeft: -1 } }}
      />
    </Group>
  );
}
