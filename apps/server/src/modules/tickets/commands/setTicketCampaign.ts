import {
  ASSIGN_STRINGS,
  ErrorCode,
  TICKET_SYSTEM_MESSAGES,
  type TicketCampaignInput,
  type TicketListItem,
} from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { AppError } from '../../../platform/http/errors.js';
import type { Conversations } from '../../messages/messages.realtime.js';
import { actorOf, changeTicket } from './changeTicket.js';

/**
 * TICKET-64: the ticket's campaign, one of the account's campaigns or null for none; another account's id
 * is 400 ("No such campaign."), another account's ticket "Ticket not found.". Like the other changes it
 * posts a system message, emits updateTicket and is audited (`ticket.campaign_set`).
 */
export async function setTicketCampaign(
  db: DB,
  conversations: Conversations,
  auth: AuthContext,
  input: TicketCampaignInput,
): Promise<TicketListItem> {
  const { item } = await changeTicket(db, conversations, actorOf(auth), input.id, async (trx) => {
    let name: string | null = null;
    if (input.campaign_id !== null) {
      const campaign = await trx
        .selectFrom('campaigns')
        .select('name')
        .where('account_id', '=', auth.accountId)
        .where('id', '=', input.campaign_id)
        .executeTakeFirst();
      if (!campaign) throw new AppError(400, ErrorCode.validation, ASSIGN_STRINGS.unknownCampaign);
      name = campaign.name;
    }
    return {
      set: { campaign_id: input.campaign_id },
      message: TICKET_SYSTEM_MESSAGES.campaign(auth.name || auth.username, name),
      action: 'ticket.campaign_set',
      detail: { campaign_id: input.campaign_id },
    };
  });
  return item;
}
