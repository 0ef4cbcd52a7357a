import {
  Anchor,
  Badge,
  Button,
  Group,
  Loader,
  Paper,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import {
  CONTACT_FILTER_LABELS,
  CONTACT_FILTERS,
  CONTACT_PAGE_SIZES,
  CONTACT_STRINGS,
  type ContactRow,
} from '@parley/contracts';
import { IconAddressBook, IconDownload, IconPlus, IconSearch, IconUpload } from '@tabler/icons-react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, Route, Routes, useNavigate } from 'react-router';
import { listDate } from '../../lib/dates';
import { errorText } from '../../lib/http';
import { contactKeys } from '../../lib/queryKeys';
import { useSession } from '../../lib/session';
import { EmptyScreen } from '../../ui/EmptyScreen';
import { Pager } from '../../ui/Pagination';
import { contactsApi, type ListFilter } from './api';
import { ContactFormModal } from './ContactFormModal';
import { ContactPage } from './ContactPage';
import { ImportModal } from './ImportModal';
import { T } from './strings';

/** `/contacts` (the list) and `/contacts/:id` (a contact's page). */
export function ContactsScreen() {
  const { state } = useSession();
  const session = state.phase === 'signedIn' ? state.session : null;
  const hidden = session && session.type !== 'admin' && Boolean(session.permission?.includes('hide_contacts'));
  if (hidden) return <EmptyScreen icon={IconAddressBook} title={T.title} text={CONTACT_STRINGS.hidden} />;
  return (
    <Routes>
      <Route index element={<ContactList />} />
      <Route path=":id" element={<ContactPage />} />
    </Routes>
  );
}

function ContactList() {
  const navigate = useNavigate();
  const [keyword, setKeyword] = useState('');
  const [debounced] = useDebouncedValue(keyword.trim(), 300);
  const [filter, setFilter] = useState<string>('all');
  const [pagination, setPagination] = useState<number>(20);
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const [importing, setImporting] = useState(false);
  const f: ListFilter = { keyword: debounced, filter, pagination, page };
  const q = useQuery({
    queryKey: contactKeys.list(f),
    queryFn: () => contactsApi.list(f),
    placeholderData: keepPreviousData,
    retry: false,
  });
  const pages = Math.max(1, Math.ceil((q.data?.total ?? 0) / pagination));
  const searching = debounced !== '' || filter !== 'all';

  return (
    <Stack gap="md" data-testid="contacts">
      <Group justify="space-between" align="center" wrap="wrap" gap="sm">
        <Group gap="xs" align="baseline">
          <Title order={1} size="h2">
            {T.title}
          </Title>
          {q.data && (
            <Text c="dimmed" size="sm" data-testid="contacts-total">
              {T.total(q.data.total)}
            </Text>
          )}
        </Group>
        <Group gap="xs">
          <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)} data-testid="contact-new">
            {T.newContact}
          </Button>
          <Button variant="default" leftSection={<IconUpload size={16} />} onClick={() => setImporting(true)}>
            {T.import}
          </Button>
          <Button
            variant="default"
            component="a"
            href={contactsApi.exportUrl}
            download="contacts.csv"
            leftSection={<IconDownload size={16} />}
          >
            {T.export}
          </Button>
        </Group>
      </Group>
      <Group gap="sm" align="flex-end" wrap="wrap">
        <TextInput
          aria-label={T.search}
          placeholder={T.search}
          leftSection={<IconSearch size={16} />}
          value={keyword}
          onChange={(e) => {
            setKeyword(e.currentTarget.value);
            setPage(1);
          }}
          w={{ base: '100%', sm: 320 }}
          data-testid="contacts-search"
        />
        <Select
          label={T.filter}
          data={CONTACT_FILTERS.map((v) => ({ value: v, label: CONTACT_FILTER_LABELS[v] }))}
          value={filter}
          onChange={(v) => {
            setFilter(v ?? 'all');
            setPage(1);
          }}
          allowDeselect={false}
          w={{ base: '100%', xs: 230 }}
          data-testid="contacts-filter"
        />
      </Group>
      {q.isError && <Text c="red">{errorText(q.error)}</Text>}
      {q.isPending && (
        <Group justify="center">
          <Loader size="sm" aria-label="Loading" />
        </Group>
      )}
      {q.data && q.data.total === 0 && (
        <Text c="dimmed" data-testid="contacts-empty">
          {searching ? T.noMatch : CONTACT_STRINGS.notYet}
        </Text>
      )}
      {q.data && q.data.contacts.length > 0 && (
        <Paper withBorder radius="md">
          <Table.ScrollContainer minWidth={640}>
            <Table verticalSpacing={8} highlightOnHover data-testid="contacts-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{T.columns.name}</Table.Th>
                  <Table.Th>{T.columns.address}</Table.Th>
                  <Table.Th>{T.columns.conversations}</Table.Th>
                  <Table.Th>{T.columns.lastSeen}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {q.data.contacts.map((c) => (
                  <ContactLine key={c.id} c={c} />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Paper>
      )}
      {q.data && q.data.total > 0 && (
        <Group justify="space-between" wrap="wrap">
          <Pager page={page} total={pages} onChange={setPage} />
          <Select
            aria-label={T.perPage}
            data={CONTACT_PAGE_SIZES.map((n) => ({ value: String(n), label: `${n} / page` }))}
            value={String(pagination)}
            onChange={(v) => {
              setPagination(Number(v ?? 20));
              setPage(1);
            }}
            allowDeselect={false}
            w={130}
          />
        </Group>
      )}
      <ContactFormModal
        opened={creating}
        onClose={() => setCreating(false)}
        onSaved={(id) => {
          setCreating(false);
          navigate(`/contacts/${id}`);
        }}
      />
      <ImportModal opened={importing} onClose={() => setImporting(false)} />
    </Stack>
  );
}

function ContactLine({ c }: { c: ContactRow }) {
  const more = c.identifiers.length - 1;
  return (
    <Table.Tr data-testid="contact-row" data-contact={c.id}>
      <Table.Td>
        <Anchor component={Link} to={`/contacts/${c.id}`} fw={500}>
          {c.salutation ? `${c.salutation} ${c.name}` : c.name}
        </Anchor>
      </Table.Td>
      <Table.Td>
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          {c.identifiers.length > 0 ? c.uid : ''}
          {more > 0 && (
            <Text span c="dimmed" size="sm">
              {' '}
              +{more}
            </Text>
          )}
        </Text>
      </Table.Td>
      <Table.Td>
        <Group gap={6}>
          <Text size="sm">{c.conversations}</Text>
          {c.open > 0 && (
            <Badge size="sm" variant="light">
              {T.open(c.open)}
            </Badge>
          )}
        </Group>
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>
        <Text size="sm">{listDate(c.last_seen_at)}</Text>
      </Table.Td>
    </Table.Tr>
  );
}
