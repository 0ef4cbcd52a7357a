import { MacroMenu } from '../../features/replies/MacroMenu';
import { TicketsScreen } from '../../features/tickets/TicketsScreen';

/** The ticket list with the macro menu among its bulk actions. */
export function TicketListScreen() {
  return <TicketsScreen bulkExtra={(ids) => <MacroMenu ticketIds={ids} compact />} />;
}
