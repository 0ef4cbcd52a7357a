import {
  Anchor,
  Badge,
  Button,
  Group,
  Loader,
  Modal,
  Pagination,
  Paper,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { CAMPAIGN_STRINGS as C, CAMPAIGN_PAGE_SIZE, channelName, TICKET_PAGE_SIZE } from '@parley/contracts';
import { IconArrowLeft, IconPencil, IconPlus, IconTrash } from '@tabler/icons-react';
import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ticketStatusName, useTicketStatuses } from '../../lib/api/ticketStatuses';
import { conversationPath } from '../../lib/conversationPath';
import { formatDay, listDate } from '../../lib/dates';
import { errorText } from '../../lib/http';
import { campaignKeys } from '../../lib/queryKeys';
import { useMe } from '../../lib/session';
import { useWrite } from '../../lib/useWrite';
import { Figure } from '../../ui/Figure';
import { toast } from '../../ui/toast';
import { campaignsApi } from './api';

/** `/campaign` (the list) and `/campaign/:id` (a campaign's page). See docs/campaigns.md. */
export function CampaignScreen() {
  const { id } = useParams();
  return id ? <CampaignPage id={Number(id)} /> : <CampaignList />;
}

function CampaignList() {
  const admin = useMe().admin;
  const navigate = useNavigate();
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const list = useQuery({
    queryKey: campaignKeys.list(page),
    queryFn: () => campaignsApi.list(page),
    placeholderData: keepPreviousData,
    retry: false,
  });
  const pages = Math.max(1, Math.ceil((list.data?.total ?? 0) / CAMPAIGN_PAGE_SIZE));
  return (
    <Stack gap="md" data-testid="campaigns">
      <Group justify="space-between">
        <Title order={1} size="h2">
          {C.title}
        </Title>
        {admin && (
          <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)} data-testid="campaign-new">
            {C.newCampaign}
          </Button>
        )}
      </Group>
      {list.isPending && <Loader size="sm" aria-label="Loading" />}
      {list.isError && <Text c="red">{errorText(list.error)}</Text>}
      {list.data && list.data.total === 0 && <Text c="dimmed">{admin ? C.none : C.noneAgent}</Text>}
      {list.data && list.data.data.length > 0 && (
        <Paper withBorder radius="md">
          <Table.ScrollContainer minWidth={340}>
            <Table verticalSpacing={8} highlightOnHover data-testid="campaigns-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{C.name}</Table.Th>
                  <Table.Th ta="right">{C.tickets}</Table.Th>
                  <Table.Th ta="right">{C.open}</Table.Th>
                  <Table.Th>{C.created_at}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.data.data.map((c) => (
                  <Table.Tr key={c.id} data-testid="campaign-row">
                    <Table.Td style={{ overflowWrap: 'anywhere' }}>
                      <Anchor component={Link} to={`/campaign/${c.id}`} fw={500}>
                        {c.name}
                      </Anchor>
                    </Table.Td>
                    <Table.Td ta="right">{c.tickets}</Table.Td>
                    <Table.Td ta="right">{c.open}</Table.Td>
                    <Table.Td style={{ whiteSpace: 'nowrap' }}>{listDate(c.created_at)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Paper>
      )}
      {pages > 1 && <Pagination total={pages} value={page} onChange={setPage} size="sm" aria-label="Campaign pages" />}
      <NameModal
        title={C.newCampaign}
        action={C.create}
        opened={creating}
        onClose={() => setCreating(false)}
        save={async (name) => {
          const made = await campaignsApi.create(name);
          toast({ message: C.created });
          navigate(`/campaign/${made.id}`);
        }}
      />
    </Stack>
  );
}

/** A name asked in a dialog (new campaign, rename); the server's refusal is shown in it. */
function NameModal(props: {
  title: string;
  action: string;
  opened: boolean;
  initial?: string;
  onClose(): void;
  save(name: string): Promise<void>;
}) {
  const [name, setName] = useState(props.initial ?? '');
  const { run, busy, error, setError } = useWrite({ invalidate: campaignKeys.all });
  const submit = async () => {
    if (!name.trim()) return setError(C.nameRequired);
    if (await run(() => props.save(name))) props.onClose();
  };
  return (
    <Modal opened={props.opened} onClose={props.onClose} title={props.title} centered>
      <Stack gap="sm">
        <TextInput
          label={C.name}
          value={name}
          maxLength={200}
          onChange={(e) => setName(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') void submit();
          }}
          data-autofocus
          data-testid="campaign-name"
        />
        {error && (
          <Text c="red" size="sm" role="alert">
            {error}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose}>
            Cancel
          </Button>
          <Button onClick={() => void submit()} loading={busy} data-testid="campaign-save">
            {props.action}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function CampaignPage({ id }: { id: number }) {
  const admin = useMe().admin;
  const navigate = useNavigate();
  const [renaming, setRenaming] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const one = useQuery({ queryKey: campaignKeys.one(id), queryFn: () => campaignsApi.one(id), retry: false });
  const tickets = useInfiniteQuery({
    queryKey: campaignKeys.tickets(id),
    queryFn: ({ pageParam }) => campaignsApi.tickets(id, pageParam),
    initialPageParam: 0,
    getNextPageParam: (last, all) =>
      last.data.length >= TICKET_PAGE_SIZE ? all.reduce((n, p) => n + p.data.length, 0) : undefined,
    retry: false,
  });
  const remove = useWrite({ invalidate: campaignKeys.all });
  const custom = useTicketStatuses();
  const c = one.data?.campaign;
  const f = one.data?.figures;
  const rows = tickets.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <Stack gap="md" data-testid="campaign-page">
      <Anchor component={Link} to="/campaign" size="sm">
        <Group gap={4}>
          <IconArrowLeft size={14} />
          {C.back}
        </Group>
      </Anchor>
      {one.isPending && <Loader size="sm" aria-label="Loading" />}
      {one.isError && <Text c="red">{errorText(one.error)}</Text>}
      {c && f && (
        <>
          <Group justify="space-between" align="flex-start" wrap="wrap">
            <Stack gap={2} style={{ minWidth: 0 }}>
              <Title order={1} size="h2" style={{ overflowWrap: 'anywhere' }} data-testid="campaign-title">
                {c.name}
              </Title>
              <Text c="dimmed" size="sm">
                {C.created_at} {formatDay(c.created_at)}
              </Text>
            </Stack>
            {admin && (
              <Group gap="xs">
                <Button variant="default" leftSection={<IconPencil size={16} />} onClick={() => setRenaming(true)}>
                  {C.rename}
                </Button>
                <Button
                  variant="default"
                  color="red"
                  leftSection={<IconTrash size={16} />}
                  onClick={() => setConfirming(true)}
                  data-testid="campaign-delete"
                >
                  {C.remove}
                </Button>
              </Group>
            )}
          </Group>
          <SimpleGrid cols={{ base: 2, sm: 5 }} spacing="sm">
            <Figure label={C.tickets} value={String(f.tickets)} testId="campaign-tickets" />
            <Figure label={C.open} value={String(f.open)} testId="campaign-open" />
            <Figure label={C.pending} value={String(f.pending)} testId="campaign-pending" />
            <Figure label={C.resolved} value={String(f.resolved)} testId="campaign-resolved" />
            <Figure label={C.closed} value={String(f.closed)} testId="campaign-closed" />
          </SimpleGrid>
          {f.channels.length > 0 && (
            <Group gap="xs" data-testid="campaign-channels">
              <Text size="sm" c="dimmed">
                {C.byChannel}
              </Text>
              {f.channels.map((ch) => (
                <Badge key={ch.channel} variant="light" tt="none">
                  {channelName(ch.channel)}: {ch.tickets}
                </Badge>
              ))}
            </Group>
          )}
          <Paper withBorder radius="md" p="md">
            <Stack gap="xs">
              <Title order={2} size="h4">
                {C.ticketsTitle}
              </Title>
              {tickets.isError && <Text c="red">{errorText(tickets.error)}</Text>}
              {tickets.isSuccess && rows.length === 0 && <Text c="dimmed">{C.noTickets}</Text>}
              {rows.map((t) => (
                <Group key={t.id} justify="space-between" wrap="nowrap" data-testid="campaign-ticket">
                  <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
                    <Badge variant="light" size="sm" style={{ flexShrink: 0 }} tt="none">
                      {channelName(t.channel)}
                    </Badge>
                    <Anchor component={Link} to={conversationPath(t.channel, t.id)} size="sm" lineClamp={1}>
                      #{t.ticket_number} {t.title}
                    </Anchor>
                  </Group>
                  <Group gap="sm" wrap="nowrap" style={{ flexShrink: 0 }}>
                    <Text size="xs" c="dimmed">
                      {ticketStatusName(t.closed, custom)}
                    </Text>
                    <Text size="xs" c="dimmed" visibleFrom="xs">
                      {listDate(t.updated_at)}
                    </Text>
                  </Group>
                </Group>
              ))}
              {tickets.hasNextPage && (
                <Group justify="center">
                  <Button
                    variant="light"
                    onClick={() => void tickets.fetchNextPage()}
                    loading={tickets.isFetchingNextPage}
                  >
                    {C.showMore}
                  </Button>
                </Group>
              )}
            </Stack>
          </Paper>
          {renaming && (
            <NameModal
              title={C.rename}
              action={C.save}
              opened
              initial={c.name}
              onClose={() => setRenaming(false)}
              save={async (name) => {
                await campaignsApi.rename(id, name);
                toast({ message: C.renamed });
              }}
            />
          )}
          <Modal opened={confirming} onClose={() => setConfirming(false)} title={C.removeConfirm(c.name)} centered>
            <Stack gap="sm">
              {remove.error && (
                <Text c="red" size="sm" role="alert">
                  {remove.error}
                </Text>
              )}
              <Group justify="flex-end">
                <Button variant="default" onClick={() => setConfirming(false)}>
                  Cancel
                </Button>
                <Button
                  color="red"
                  loading={remove.busy}
                  data-testid="campaign-delete-confirm"
                  onClick={async () => {
                    if (!(await remove.run(() => campaignsApi.remove(id)))) return;
                    toast({ message: C.removed });
                    navigate('/campaign');
                  }}
                >
                  {C.remove}
                </Button>
              </Group>
            </Stack>
          </Modal>
        </>
      )}
    </Stack>
  );
}
