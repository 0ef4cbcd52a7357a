import { Badge, Button, Group, Modal, Stack, Text } from '@mantine/core';
import {
  assigneeList,
  assigneeText,
  channelName,
  type TicketCustomStatus,
  type TicketListItem,
  ticketDate,
  ticketStatusName,
} from '@parley/contracts';
import { useDisplayName } from '../../lib/people';

/**
 * TICKET-48 (design): the ticket popup of an arrival (TICKET-45, TICKET-46) and of action mode (TICKET-60):
 * number, title, channel, customer, priority, status, assignees and received time, with Open and Close.
 */
export function TicketPopup({
  ticket,
  custom,
  onOpen,
  onClose,
}: {
  ticket: TicketListItem | null;
  custom: TicketCustomStatus[];
  onOpen(id: number): void;
  onClose(): void;
}) {
  const displayName = useDisplayName();
  return (
    <Modal opened={ticket !== null} onClose={onClose} title={ticket ? `#${ticket.ticket_number} ${ticket.title}` : ''}>
      {ticket && (
        <Stack gap="xs" data-testid="ticket-popup">
          <Group gap="xs">
            <Badge variant="light" tt="none">
              {channelName(ticket.channel)}
            </Badge>
            {ticket.severity && <Badge color={ticket.severity === 'H' ? 'red' : 'gray'}>{ticket.severity}</Badge>}
            <Badge variant="outline" tt="none">
              {ticketStatusName(ticket.closed, custom)}
            </Badge>
          </Group>
          <Text size="sm">{[ticket.name, ticket.email, ticket.phone].filter(Boolean).join(' · ') || '—'}</Text>
          {ticket.assignee && <Text size="sm">→ {assigneeText(assigneeList(ticket.assignee).map(displayName))}</Text>}
          <Text size="xs" c="dimmed">
            {ticketDate(ticket.created_at)}
          </Text>
          <Group justify="flex-end" mt="sm">
            <Button variant="default" onClick={onClose}>
              Close
            </Button>
            <Button onClick={() => onOpen(ticket.id)}>Open</Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
