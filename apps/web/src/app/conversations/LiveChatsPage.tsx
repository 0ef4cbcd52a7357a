import { lazy } from 'react';
// The screen is loaded lazily by the routes, so it comes from its own file (not the feature's index).
import { LiveChatsScreen } from '../../features/livechat/LiveChatsScreen';
import { TicketInfoToggle } from '../../features/tickets/TicketInfoPanel';
import { TicketNotes } from '../../features/tickets/TicketNotes';

const Pane = lazy(() => import('./Conversation').then((m) => ({ default: m.Conversation })));

/** LIVECHAT-02: the live chats, with the open chat's conversation, the details toggle and the ticket's notes. */
export function LiveChatsPage() {
  return <LiveChatsScreen Pane={Pane} InfoToggle={TicketInfoToggle} Notes={TicketNotes} />;
}
