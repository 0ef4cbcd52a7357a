import {
  Anchor,
  Badge,
  Button,
  Group,
  Loader,
  MultiSelect,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { PRODUCT_TICKETS_PAGE, type ProductArticle } from '@parley/contracts';
import { IconArchive, IconArrowBackUp, IconArrowLeft, IconPencil } from '@tabler/icons-react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ticketStatusName, useTicketStatuses } from '../../lib/api/ticketStatuses';
import { formatDay } from '../../lib/dates';
import { errorText, HttpError } from '../../lib/http';
import { useMe } from '../../lib/session';
import { useWrite } from '../../lib/useWrite';
import { Figure } from '../../ui/Figure';
import { Pager } from '../../ui/Pagination';
import { toast } from '../../ui/toast';
import { productKeys, productsApi } from './api';
import { ProductForm } from './ProductForm';
import { P } from './strings';

/** Where an article opens: a published one in the reader, a draft in the editor. */
const articlePath = (a: ProductArticle) =>
  a.status === 'published' ? `/support/${a.type}/${a.lang}/${a.slug ?? a.id}` : '/kb';

/** `/product/:id`: the product, its tickets (those the user may see) and its articles; admins edit and archive. */
export function ProductPageScreen() {
  const id = Number(useParams().id);
  return Number.isSafeInteger(id) && id > 0 ? <ProductPage key={id} id={id} /> : <NotFound />;
}

function NotFound() {
  return (
    <Stack gap="sm" align="flex-start" data-testid="product-not-found">
      <BackLink />
      <Title order={1} size="h2">
        {P.notFound}
      </Title>
      <Text c="dimmed">{P.notFoundText}</Text>
    </Stack>
  );
}

function BackLink() {
  return (
    <Anchor component={Link} to="/product" size="sm">
      <Group gap={4}>
        <IconArrowLeft size={14} />
        {P.back}
      </Group>
    </Anchor>
  );
}

function ProductPage({ id }: { id: number }) {
  const admin = useMe().admin;
  const [editing, setEditing] = useState(false);
  const one = useQuery({ queryKey: productKeys.one(id), queryFn: () => productsApi.one(id), retry: false });
  const archive = useWrite({ invalidate: productKeys.all });
  if (one.isError && one.error instanceof HttpError && one.error.status === 404) return <NotFound />;
  const p = one.data?.product;
  return (
    <Stack gap="md" data-testid="product-page">
      <BackLink />
      {one.isPending && <Loader size="sm" aria-label={P.loading} />}
      {one.isError && <Text c="red">{errorText(one.error)}</Text>}
      {p && one.data && (
        <>
          <Group justify="space-between" align="flex-start" wrap="wrap">
            <Stack gap={4} style={{ minWidth: 0, flex: '1 1 240px' }}>
              <Group gap="xs" wrap="wrap">
                <Title order={1} size="h2" style={{ overflowWrap: 'anywhere' }} data-testid="product-title">
                  {p.name}
                </Title>
                {!p.active && (
                  <Badge variant="light" color="gray" tt="none" data-testid="product-archived">
                    {P.archived}
                  </Badge>
                )}
              </Group>
              {p.code && (
                <Text size="sm" c="dimmed" data-testid="product-code-shown">
                  {P.code}: {p.code}
                </Text>
              )}
              {p.description && (
                <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                  {p.description}
                </Text>
              )}
            </Stack>
            {admin && (
              <Group gap="xs">
                <Button
                  variant="default"
                  leftSection={<IconPencil size={16} />}
                  onClick={() => setEditing(true)}
                  data-testid="product-edit"
                >
                  {P.edit}
                </Button>
                <Button
                  variant="default"
                  leftSection={p.active ? <IconArchive size={16} /> : <IconArrowBackUp size={16} />}
                  loading={archive.busy}
                  data-testid="product-archive"
                  onClick={async () => {
                    if (await archive.run(() => productsApi.update(id, { active: !p.active })))
                      toast({ message: p.active ? P.archivedToast : P.restoredToast });
                  }}
                >
                  {p.active ? P.archive : P.restore}
                </Button>
              </Group>
            )}
          </Group>
          {archive.error && (
            <Text c="red" size="sm" role="alert">
              {archive.error}
            </Text>
          )}
          <SimpleGrid cols={{ base: 3 }} spacing="sm">
            <Figure label={P.openTickets} value={String(p.open_tickets)} testId="product-open-tickets" />
            <Figure label={P.tickets} value={String(p.tickets)} testId="product-tickets" />
            <Figure label={P.articles} value={String(p.articles)} testId="product-articles" />
          </SimpleGrid>
          <ProductTickets id={id} total={p.tickets} />
          <ProductArticles id={id} linked={one.data.articles} />
          {editing && (
            <ProductForm
              title={P.editProduct}
              action={P.save}
              initial={p}
              onClose={() => setEditing(false)}
              save={async (input) => {
                await productsApi.update(id, input);
                toast({ message: P.saved });
              }}
            />
          )}
        </>
      )}
    </Stack>
  );
}

function ProductTickets({ id, total }: { id: number; total: number }) {
  const [page, setPage] = useState(1);
  const custom = useTicketStatuses();
  const tickets = useQuery({
    queryKey: productKeys.tickets(id, page),
    queryFn: () => productsApi.tickets(id, page),
    placeholderData: keepPreviousData,
    retry: false,
  });
  const pages = Math.max(1, Math.ceil((tickets.data?.total ?? total) / PRODUCT_TICKETS_PAGE));
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-labelledby="product-tickets-title">
      <Stack gap="xs">
        <Title order={2} size="h4" id="product-tickets-title">
          {P.ticketsTitle}
        </Title>
        {tickets.isError && <Text c="red">{errorText(tickets.error)}</Text>}
        {tickets.isSuccess && tickets.data.total === 0 && <Text c="dimmed">{P.noTickets}</Text>}
        {tickets.data?.data.map((t) => (
          <Group key={t.id} justify="space-between" wrap="nowrap" gap="sm" data-testid="product-ticket">
            <Anchor component={Link} to={`/ticket/${t.id}`} size="sm" lineClamp={1} style={{ minWidth: 0 }}>
              #{t.ticket_number} {t.title}
            </Anchor>
            <Group gap="sm" wrap="nowrap" style={{ flexShrink: 0 }}>
              <Badge variant="light" size="sm" tt="none" color="gray">
                {ticketStatusName(t.closed, custom)}
              </Badge>
              <Text size="xs" c="dimmed" data-testid="product-ticket-date">
                {formatDay(t.created_at)}
              </Text>
            </Group>
          </Group>
        ))}
        <Pager page={page} total={pages} onChange={setPage} />
      </Stack>
    </Paper>
  );
}

function ProductArticles({ id, linked }: { id: number; linked: ProductArticle[] }) {
  const articles = useQuery({ queryKey: productKeys.articles, queryFn: productsApi.articles, staleTime: 30_000 });
  const write = useWrite({ invalidate: productKeys.all });
  const data = useMemo(() => {
    const seen = new Set<number>();
    return [...linked, ...(articles.data ?? [])]
      .filter((a) => !seen.has(a.id) && seen.add(a.id))
      .map((a) => ({
        value: String(a.id),
        label: `${a.title} (${a.type}/${a.lang}${a.status === 'published' ? '' : `, ${P.draft.toLowerCase()}`})`,
      }));
  }, [linked, articles.data]);
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-labelledby="product-articles-title">
      <Stack gap="xs">
        <Title order={2} size="h4" id="product-articles-title">
          {P.articlesTitle}
        </Title>
        {linked.length === 0 && <Text c="dimmed">{P.noArticles}</Text>}
        {linked.map((a) => (
          <Group key={a.id} gap="xs" wrap="nowrap" data-testid="product-article">
            <Anchor component={Link} to={articlePath(a)} size="sm" lineClamp={1}>
              {a.title}
            </Anchor>
            {a.status !== 'published' && (
              <Badge size="xs" variant="light" color="gray" tt="none">
                {P.draft}
              </Badge>
            )}
          </Group>
        ))}
        <MultiSelect
          label={P.linkArticles}
          placeholder={linked.length ? undefined : P.linkArticlesPlaceholder}
          data={data}
          value={linked.map((a) => String(a.id))}
          searchable
          clearable
          disabled={write.busy}
          onChange={(v) => void write.run(() => productsApi.setArticles(id, v.map(Number)))}
          data-testid="product-article-picker"
        />
        {write.error && (
          <Text c="red" size="sm" role="alert">
            {write.error}
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
