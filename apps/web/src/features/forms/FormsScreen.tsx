import { Anchor, Button, Group, Loader, Paper, Stack, Table, Tabs, Text, Title } from '@mantine/core';
import { type CustomTab, FORM_STRINGS, type FormEntry, type FormFieldType, type FormValue } from '@parley/contracts';
import { IconSettings } from '@tabler/icons-react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { formatDateTime, formatDay } from '../../lib/dates';
import { errorText } from '../../lib/http';
import { formKeys } from '../../lib/queryKeys';
import { useSession } from '../../lib/session';
import { Pager } from '../../ui/Pagination';
import { formsApi } from './api';
import { FormsSettings } from './FormsSettings';

/** An answer as shown: a choice by its name, a date (stored YYYY-MM-DD) as D/M/YYYY, else as sent. */
function valueText(v: FormValue | undefined, type: FormFieldType | undefined): string {
  if (v === undefined) return '';
  if (typeof v !== 'string') return v.name;
  return type === 'date' ? formatDay(v) || v : v;
}

/**
 * CONTACT-01: `/forms`, a Main tab (the Main form's entries) and one tab per custom form, each paged by its
 * data_per_page and numbered from its start_index; an entry shows its key-to-value map under the field
 * labels (CONTACT-02). Admins manage the forms from here.
 */
export function FormsScreen() {
  const { state } = useSession();
  const isAdmin = state.phase === 'signedIn' && state.session.type === 'admin';
  const main = useQuery({ queryKey: formKeys.main, queryFn: formsApi.main, retry: false });
  const [tab, setTab] = useState<string | null>(null);
  const [managing, setManaging] = useState(false);
  const tabs: CustomTab[] = main.data ? [main.data.main, ...main.data.tabs] : [];
  const current = tabs.find((t) => String(t.id) === tab) ?? tabs[0];

  return (
    <Stack gap="md" data-testid="forms">
      <Group justify="space-between">
        <Title order={1} size="h2">
          Forms
        </Title>
        {isAdmin && (
          <Button
            variant="default"
            leftSection={<IconSettings size={16} />}
            onClick={() => setManaging(true)}
            data-testid="forms-manage"
          >
            Manage forms
          </Button>
        )}
      </Group>
      {main.isPending && <Loader size="sm" aria-label="Loading" />}
      {main.isError && <Text c="red">{errorText(main.error)}</Text>}
      {current && (
        <Tabs value={String(current.id)} onChange={setTab} keepMounted={false}>
          <Tabs.List>
            {tabs.map((t, i) => (
              <Tabs.Tab key={t.id} value={String(t.id)} data-testid="forms-tab">
                {i === 0 ? 'Main' : t.name}
              </Tabs.Tab>
            ))}
          </Tabs.List>
          {tabs.map((t) => (
            <Tabs.Panel key={t.id} value={String(t.id)} pt="md">
              <Entries tab={t} />
            </Tabs.Panel>
          ))}
        </Tabs>
      )}
      {isAdmin && <FormsSettings opened={managing} onClose={() => setManaging(false)} />}
    </Stack>
  );
}

function Entries({ tab }: { tab: CustomTab }) {
  const [page, setPage] = useState(1);
  const q = useQuery({
    queryKey: formKeys.tab(tab.id, page - 1),
    queryFn: () => formsApi.tab(tab.id, page - 1),
    placeholderData: keepPreviousData,
    retry: false,
  });
  if (q.isPending) return <Loader size="sm" aria-label="Loading" />;
  if (q.isError) return <Text c="red">{errorText(q.error)}</Text>;
  const { data, total, fields, types } = q.data;
  if (total === 0) return <Text c="dimmed">{FORM_STRINGS.noEntries}</Text>;
  const keys = Object.keys(fields);
  const first = tab.start_index + (page - 1) * tab.data_per_page;
  return (
    <Stack gap="sm">
      <Paper withBorder radius="md">
        <Table.ScrollContainer minWidth={Math.max(480, 160 * (keys.length + 2))}>
          <Table verticalSpacing={6} data-testid="forms-entries">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>No.</Table.Th>
                {keys.map((k) => (
                  <Table.Th key={k}>{fields[k]}</Table.Th>
                ))}
                <Table.Th>Sent</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.map((e: FormEntry, i) => (
                <Table.Tr key={e.id} data-testid="forms-entry">
                  <Table.Td>
                    {e.ticket_id ? (
                      <Anchor component={Link} to={`/ticket/${e.ticket_id}`} size="sm">
                        {first + i}
                      </Anchor>
                    ) : (
                      first + i
                    )}
                  </Table.Td>
                  {keys.map((k) => (
                    <Table.Td key={k} maw={320}>
                      <Text size="sm" lineClamp={3} style={{ overflowWrap: 'anywhere' }}>
                        {valueText(e.form_data[k], types[k])}
                      </Text>
                    </Table.Td>
                  ))}
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    <Text size="sm">{formatDateTime(e.created_at)}</Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Paper>
      <Pager page={page} total={Math.ceil(total / tab.data_per_page)} onChange={setPage} />
    </Stack>
  );
}
