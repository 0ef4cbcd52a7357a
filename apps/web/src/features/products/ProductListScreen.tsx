import {
  Anchor,
  Badge,
  Button,
  Group,
  Loader,
  Paper,
  SegmentedControl,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { PRODUCT_PAGE_SIZE } from '@parley/contracts';
import { IconPlus, IconSearch } from '@tabler/icons-react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { errorText } from '../../lib/http';
import { useMe } from '../../lib/session';
import { Pager } from '../../ui/Pagination';
import { toast } from '../../ui/toast';
import { type ProductStatusFilter, productKeys, productsApi } from './api';
import { ProductForm } from './ProductForm';
import { P } from './strings';

/** `/product`: the catalogue with search, the tickets and articles of each product; admins add products. */
export function ProductListScreen() {
  const admin = useMe().admin;
  const navigate = useNavigate();
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search.trim(), 250);
  const [status, setStatus] = useState<ProductStatusFilter>('active');
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const list = useQuery({
    queryKey: productKeys.list(q, status, page),
    queryFn: () => productsApi.list(q, status, page),
    placeholderData: keepPreviousData,
    retry: false,
  });
  const pages = Math.max(1, Math.ceil((list.data?.total ?? 0) / PRODUCT_PAGE_SIZE));
  const filtered = q !== '' || status !== 'active';
  return (
    <Stack gap="md" data-testid="products">
      <Group justify="space-between">
        <Title order={1} size="h2">
          {P.title}
        </Title>
        {admin && (
          <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)} data-testid="product-new">
            {P.newProduct}
          </Button>
        )}
      </Group>
      <Group gap="sm" align="flex-end" wrap="wrap">
        <TextInput
          aria-label={P.search}
          placeholder={P.searchPlaceholder}
          leftSection={<IconSearch size={16} />}
          value={search}
          onChange={(e) => {
            setSearch(e.currentTarget.value);
            setPage(1);
          }}
          style={{ flex: '1 1 220px', maxWidth: 420 }}
          data-testid="product-search"
        />
        <SegmentedControl
          aria-label={P.show}
          value={status}
          onChange={(v) => {
            setStatus(v as ProductStatusFilter);
            setPage(1);
          }}
          data={[
            { value: 'active', label: P.active },
            { value: 'archived', label: P.archived },
            { value: 'all', label: P.all },
          ]}
        />
      </Group>
      {list.isPending && <Loader size="sm" aria-label={P.loading} />}
      {list.isError && <Text c="red">{errorText(list.error)}</Text>}
      {list.data && list.data.total === 0 && (
        <Text c="dimmed" data-testid="products-empty">
          {filtered ? P.noMatch : admin ? P.none : P.noneAgent}
        </Text>
      )}
      {list.data && list.data.data.length > 0 && (
        <Paper withBorder radius="md">
          <Table.ScrollContainer minWidth={340}>
            <Table verticalSpacing={8} highlightOnHover data-testid="products-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{P.name}</Table.Th>
                  <Table.Th ta="right">{P.openTickets}</Table.Th>
                  <Table.Th ta="right">{P.tickets}</Table.Th>
                  <Table.Th ta="right">{P.articles}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.data.data.map((p) => (
                  <Table.Tr key={p.id} data-testid="product-row">
                    <Table.Td style={{ overflowWrap: 'anywhere' }}>
                      <Group gap={6} wrap="wrap">
                        <Anchor component={Link} to={`/product/${p.id}`} fw={500}>
                          {p.name}
                        </Anchor>
                        {p.code && (
                          <Text size="xs" c="dimmed" component="span">
                            {p.code}
                          </Text>
                        )}
                        {!p.active && (
                          <Badge size="xs" variant="light" color="gray" tt="none">
                            {P.archived}
                          </Badge>
                        )}
                      </Group>
                    </Table.Td>
                    <Table.Td ta="right">{p.open_tickets}</Table.Td>
                    <Table.Td ta="right">{p.tickets}</Table.Td>
                    <Table.Td ta="right">{p.articles}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Paper>
      )}
      <Pager page={page} total={pages} onChange={setPage} />
      {creating && (
        <ProductForm
          title={P.newProduct}
          action={P.create}
          onClose={() => setCreating(false)}
          save={async (input) => {
            const made = await productsApi.create(input);
            toast({ message: P.created });
            navigate(`/product/${made.id}`);
          }}
        />
      )}
    </Stack>
  );
}
