import { Anchor, Badge, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { type VisitorDetails as Details, isLiveChatChannel, ticketStatusName } from '@parley/contracts';
import { useQuery } from '@tanstack/react-query';
import type { ComponentType } from 'react';
import { Link } from 'react-router';
import { listDate } from '../../lib/dates';
import { api } from '../../lib/http';
import { useDisplayName } from '../../lib/people';
import { liveChatKeys } from '../../lib/queryKeys';
import { browserName } from './browserName';
import { VISITOR_DETAILS_TEXT as V } from './strings';

function Row({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" style={{ overflowWrap: 'anywhere' }} data-testid={testId}>
        {value || V.unknown}
      </Text>
    </Stack>
  );
}

/**
 * Who the visitor of a live chat is (`GET /api/livechat/visitor/{ticketId}`): the form's name, e-mail, phone
 * and ic, the page the chat started from, the browser, the session's other chats and the contact's other
 * tickets, then the ticket's notes.
 */
export function VisitorDetails({
  ticketId,
  heading = true,
  Notes,
}: {
  ticketId: number;
  heading?: boolean;
  /** The ticket's notes (the tickets feature's), given by the screen. */
  Notes: ComponentType<{ ticketId: number }>;
}) {
  const displayName = useDisplayName();
  const q = useQuery({
    queryKey: liveChatKeys.visitor(ticketId),
    queryFn: () => api<{ result: 'success'; data: Details }>('GET', `/api/livechat/visitor/${ticketId}`),
  });
  const d = q.data?.data;
  return (
    <Paper
      withBorder={heading}
      p={heading ? 'md' : 0}
      radius="md"
      component="aside"
      aria-label={V.title}
      data-testid="visitor-details"
    >
      <Stack gap="sm">
        {heading && (
          <Title order={2} size="h4">
            {V.title}
          </Title>
        )}
        {!d && (q.isError ? <Text c="dimmed">{V.failed}</Text> : <Loader size="sm" aria-label="Loading" />)}
        {d && (
          <>
            <Text fw={600} data-testid="visitor-name">
              {d.name || V.unknown}
            </Text>
            <Row label={V.email} value={d.email} testId="visitor-email" />
            <Row label={V.phone} value={d.phone} testId="visitor-phone" />
            {d.ic && <Row label={V.ic} value={d.ic} />}
            <Stack gap={0}>
              <Text size="xs" c="dimmed">
                {V.page}
              </Text>
              {/^https?:\/\//.test(d.page) ? (
                <Anchor
                  href={d.page}
                  target="_blank"
                  rel="noreferrer noopener"
                  size="sm"
                  style={{ overflowWrap: 'anywhere' }}
                >
                  {d.page}
                </Anchor>
              ) : (
                <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                  {d.page || V.unknown}
                </Text>
              )}
            </Stack>
            <Stack gap={0}>
              <Text size="xs" c="dimmed">
                {V.browser}
              </Text>
              <Text size="sm" title={d.browser} style={{ overflowWrap: 'anywhere' }}>
                {browserName(d.browser) || V.unknown}
              </Text>
            </Stack>
            <Stack gap={4}>
              <Text size="xs" c="dimmed">
                {V.pastChats}
              </Text>
              {d.chats.length === 0 && <Text size="sm">{V.none}</Text>}
              {d.chats.map((c) => (
                <Text size="sm" key={`${c.ticket_id}-${c.queued_at}`} data-testid="visitor-past-chat">
                  {c.ticket_id ? (
                    <Anchor component={Link} to={`/livechat/${c.ticket_id}`} size="sm">
                      #{c.ticket_number}
                    </Anchor>
                  ) : (
                    V.notAccepted
                  )}{' '}
                  {listDate(c.queued_at)} · {V.state(c.state)}
                  {c.agent && ` · ${displayName(c.agent)}`}
                </Text>
              ))}
            </Stack>
            <Stack gap={4}>
              <Text size="xs" c="dimmed">
                {V.pastTickets}
              </Text>
              {d.tickets.length === 0 && <Text size="sm">{V.none}</Text>}
              {d.tickets.map((t) => (
                <Text size="sm" key={t.id} data-testid="visitor-past-ticket">
                  <Anchor
                    component={Link}
                    to={isLiveChatChannel(t.channel) ? `/livechat/${t.id}` : `/ticket/${t.id}`}
                    size="sm"
                  >
                    #{t.ticket_number} {t.title}
                  </Anchor>{' '}
                  <Badge size="xs" variant="light" color="gray" tt="none">
                    {ticketStatusName(t.closed)}
                  </Badge>{' '}
                  <Text span size="xs" c="dimmed">
                    {listDate(t.created_at)}
                  </Text>
                </Text>
              ))}
            </Stack>
          </>
        )}
        <Notes ticketId={ticketId} />
      </Stack>
    </Paper>
  );
}
