import { Center, Paper, Text } from '@mantine/core';

/**
 * The right-hand area of `/ticket/<id>`. The conversation pane (features/conversation/ConversationPane,
 * `{ ticketId }`) is mounted here by its owner: replace this body with `<ConversationPane ticketId={ticketId} />`.
 */
export function TicketPaneSlot({ ticketId }: { ticketId: number }) {
  return (
    <Paper withBorder radius="md" p="md" mih={300} data-testid="ticket-pane" data-ticket={ticketId}>
      <Center mih={260}>
        <Text c="dimmed">Ticket {ticketId}</Text>
      </Center>
    </Paper>
  );
}
