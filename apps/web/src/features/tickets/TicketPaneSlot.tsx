import { Center, Paper, Text } from '@mantine/core';

/**
 * The right-hand area of `/ticket/<id>`. The conversation pane is composed in app/ (`app/conversations/
 * Conversation`, `{ ticketId }`): to show it here, the screen takes it as a component from app/, as the chat
 * and live chat screens do (a feature imports no other feature).
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
