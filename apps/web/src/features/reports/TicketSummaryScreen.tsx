import { Anchor, Badge, Button, Group, Loader, Paper, Select, Stack, Table, Text, Title } from '@mantine/core';
import {
  canViewReports,
  channelName,
  REPORT_COLUMNS,
  REPORT_LIVECHAT_COLUMNS,
  REPORT_PAGE_SIZE,
  REPORT_STATUS_NAMES,
  REPORT_STATUSES,
  REPORT_TYPE_NAMES,
  REPORT_TYPES,
  type ReportRow,
  type ReportStatus,
  type ReportType,
  REPORT_STRINGS as S,
} from '@parley/contracts';
import { IconChartBar } from '@tabler/icons-react';
import { useInfiniteQuery } from '@tanstack/react-query';
import { Fragment, useMemo } from 'react';
import { Link, Navigate, useNavigate, useParams } from 'react-router';
import { formatDateTime } from '../../lib/dates';
import { reportKeys } from '../../lib/queryKeys';
import { useSession } from '../../lib/session';
import { EmptyScreen } from '../../ui/EmptyScreen';
import { reportsApi, type SummaryFilter } from './api';
import { ReportRangeInputs, useReportRange } from './ReportRange';

const isType = (v: string | undefined): v is ReportType => REPORT_TYPES.includes(v as ReportType);
const isStatus = (v: string | undefined): v is ReportStatus => REPORT_STATUSES.includes(v as ReportStatus);
/**
 * REPORT-02, REPORT-05..REPORT-12, REPORT-27: the ticket summary at `/report/:type/:status`. The range is
 * typed and shown as DD-MM-YYYY and sent as YYYY-MM-DD; tickets come 30 at a time grouped under their created
 * day, and Load more asks for the next 30 while a page comes back full. A failed load just stops loading.
 */
export function TicketSummaryScreen() {
  const { type, status } = useParams();
  const navigate = useNavigate();
  const { state } = useSession();
  const session = state.phase === 'signedIn' ? state.session : null;
  // REPORT-01: admins and users with view_report (supervisors by default); the server checks it as well.
  const allowed = session !== null && canViewReports(session);
  const checked = useReportRange();
  const filter: SummaryFilter | null =
    isType(type) && isStatus(status) && checked.range ? { type, status, ...checked.range } : null;

  const q = useInfiniteQuery({
    queryKey: reportKeys.summary(filter ?? {}),
    queryFn: ({ pageParam }) => reportsApi.summary(filter!, pageParam),
    initialPageParam: 0,
    // REPORT-12: more while a page comes back with 30 or more.
    getNextPageParam: (last, all) =>
      last.count >= REPORT_PAGE_SIZE ? all.reduce((n, p) => n + p.count, 0) : undefined,
    enabled: allowed && filter !== null,
    retry: false,
  });

  // REPORT-05: the pages' groups merged; a day split over two pages stays one group.
  const groups = useMemo(() => {
    const out = new Map<string, ReportRow[]>();
    for (const page of q.data?.pages ?? [])
      for (const [heading, rows] of Object.entries(page.data)) out.set(heading, [...(out.get(heading) ?? []), ...rows]);
    return [...out];
  }, [q.data]);

  if (!isType(type) || !isStatus(status)) return <Navigate to="/report/all/all" replace />;
  if (session && !allowed) return <EmptyScreen icon={IconChartBar} title={S.title} text={S.notAllowed} />;

  const withChat = type !== 'ticket';
  const columns = [...REPORT_COLUMNS, ...(withChat ? REPORT_LIVECHAT_COLUMNS : [])];
  const go = (t: ReportType, s: ReportStatus) => navigate(`/report/${t}/${s}`);
  const loaded = q.data !== undefined;

  return (
    <Stack gap="md" data-testid="ticket-summary">
      <Title order={1} size="h2">
        {S.title}
      </Title>
      <Paper withBorder radius="md" p="md">
        <Group align="flex-start" gap="sm" wrap="wrap">
          <ReportRangeInputs range={checked} />
          <Select
            label={S.type}
            data={REPORT_TYPES.map((t) => ({ value: t, label: REPORT_TYPE_NAMES[t] }))}
            value={type}
            onChange={(v) => v && isType(v) && go(v, status)}
            allowDeselect={false}
            w={{ base: '100%', xs: 150 }}
            data-testid="report-type"
          />
          <Select
            label={S.status}
            data={REPORT_STATUSES.map((s) => ({ value: s, label: REPORT_STATUS_NAMES[s] }))}
            value={status}
            onChange={(v) => v && isStatus(v) && go(type, v)}
            allowDeselect={false}
            w={{ base: '100%', xs: 150 }}
            data-testid="report-status"
          />
        </Group>
      </Paper>

      {filter && loaded && groups.length === 0 && (
        <Text c="dimmed" data-testid="report-empty">
          {S.empty}
        </Text>
      )}
      {filter && groups.length > 0 && (
        <Paper withBorder radius="md">
          <Table.ScrollContainer minWidth={withChat ? 1100 : 960}>
            <Table verticalSpacing={6} striped={false} data-testid="report-table">
              <Table.Thead>
                <Table.Tr>
                  {columns.map((c) => (
                    <Table.Th key={c}>{c}</Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {groups.map(([heading, rows]) => (
                  <Fragment key={heading}>
                    <Table.Tr bg="var(--mantine-color-default-hover)" data-testid="report-heading">
                      <Table.Th colSpan={columns.length}>{heading}</Table.Th>
                    </Table.Tr>
                    {rows.map((r) => (
                      <SummaryRow key={r.id} row={r} withChat={withChat} />
                    ))}
                  </Fragment>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Paper>
      )}
      {filter && (q.isFetching || q.isFetchingNextPage) && (
        <Group justify="center">
          <Loader size="sm" aria-label="Loading" />
        </Group>
      )}
      {filter && q.hasNextPage && !q.isFetching && !q.isError && (
        <Group justify="center">
          <Button variant="light" onClick={() => void q.fetchNextPage()} data-testid="report-more">
            {S.loadMore}
          </Button>
        </Group>
      )}
    </Stack>
  );
}

const SLA_COLOR = { breached: 'red', within: 'green' } as const;

function SummaryRow({ row: r, withChat }: { row: ReportRow; withChat: boolean }) {
  return (
    <Table.Tr data-testid="report-row" data-ticket={r.ticket_number}>
      <Table.Td>
        <Anchor component={Link} to={`/ticket/${r.id}`} size="sm">
          {r.ticket_number}
        </Anchor>
      </Table.Td>
      <Table.Td miw={180} maw={280}>
        <Text size="sm" lineClamp={2}>
          {r.title}
        </Text>
      </Table.Td>
      <Table.Td>{channelName(r.channel)}</Table.Td>
      <Table.Td>
        <Group gap={4}>
          {r.label.map((l) => (
            <Badge key={l} variant="light" size="sm">
              {l}
            </Badge>
          ))}
        </Group>
      </Table.Td>
      <Table.Td>{r.status}</Table.Td>
      <Table.Td>{r.assignee.join(', ')}</Table.Td>
      <Table.Td>{r.department}</Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDateTime(r.created)}</Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDateTime(r.updated)}</Table.Td>
      <Table.Td>
        {r.sla ? (
          <Badge variant="light" color={SLA_COLOR[r.sla]} size="sm">
            {S.sla[r.sla]}
          </Badge>
        ) : (
          S.sla.none
        )}
      </Table.Td>
      {withChat && <Table.Td data-testid="report-rating">{r.rating ?? ''}</Table.Td>}
      {withChat && <Table.Td>{r.reason ?? ''}</Table.Td>}
    </Table.Tr>
  );
}
