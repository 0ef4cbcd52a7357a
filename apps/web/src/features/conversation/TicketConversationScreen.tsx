import { Box, Group } from '@mantine/core';
import { Navigate, useParams } from 'react-router';
import { useSession } from '../auth/useSession';
import { TicketsScreen } from '../tickets/TicketsScreen';
import { ConversationPane } from './ConversationPane';

/**
 * `/ticket/<id>` until the tickets screen has its own pane slot: the list on the left, the conversation
 * on the right (one column on narrow screens).
 */
export function TicketConversationScreen() {
  const { id } = useParams();
  const { state } = useSession();
  // PLAN-09, SHELL-30: a console account (plan 99) has no conversation view.
  if (state.phase === 'signedIn' && state.session.plan === 99) return <Navigate to="/" replace />;
  const ticketId = Number(id);
  return (
    <Group align="flex-start" gap="md" wrap="wrap" w="100%">
      <Box style={{ flex: '1 1 420px', minWidth: 0 }} visibleFrom="lg">
        <TicketsScreen />
      </Box>
      <Box style={{ flex: '1 1 480px', minWidth: 0 }}>
        <ConversationPane key={ticketId} ticketId={ticketId} />
      </Box>
    </Group>
  );
}
