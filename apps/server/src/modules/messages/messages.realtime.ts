import { CHANNEL_CODES, isLiveChatChannel, rooms, WORKSPACE_CHANNEL } from '@parley/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { Trx } from '../../platform/outbox/index.js';

/** The ticket a message event belongs to, as an audience rule sees it. */
export interface AudienceTicket {
  id: number;
  accountId: number;
  channel: string;
}
/** Which rooms hear a conversation's `newMessage` and `syncDelete` (a visitor room may be among them). */
export type AudienceRule = (trx: Trx, ticket: AudienceTicket) => Promise<string[]>;
/** Whether a user may read and write a conversation (its history, sending, joining its room). */
export type AccessRule = (db: Kysely<Database>, ticket: AudienceTicket, userId: number) => Promise<boolean>;

/** One channel's rules: who hears its conversation and who may read it. */
export interface ConversationRule {
  audience: AudienceRule;
  access: AccessRule;
}

/**
 * The staff channels' rule (every channel code but Workspace chats and live chats): agents may open any
 * ticket of their account, so the account's room hears it and every user of the account may read it.
 */
export const staffConversation: ConversationRule = {
  audience: async (_trx, ticket) => [rooms.account(ticket.accountId)],
  access: async () => true,
};

/** Every staff channel code with `staffConversation`; live chats and Workspace chats bring their own. */
export function staffConversations(): Record<string, ConversationRule> {
  const out: Record<string, ConversationRule> = {};
  for (const code of CHANNEL_CODES)
    if (code !== WORKSPACE_CHANNEL && !isLiveChatChannel(code)) out[code] = staffConversation;
  return out;
}

/** The staff part of a message audience (for callers that have the message audience already). */
export const staffOf = (messageRooms: string[]): string[] => messageRooms.filter((r) => !r.startsWith('visitor:'));

/**
 * Who receives a conversation's events and who may read it, decided once per channel, in one place. Each
 * server instance builds its own from the rules the modules export (app.ts), so nothing is registered by
 * importing a module. A channel without a rule is heard by nobody and read by nobody: a new
 * channel must say who it is for.
 */
export class Conversations {
  private readonly rules: ReadonlyMap<string, ConversationRule>;

  constructor(rules: Record<string, ConversationRule>) {
    this.rules = new Map(Object.entries(rules));
  }

  /** Whether the channel has a rule at all. */
  covers(channel: string): boolean {
    return this.rules.has(channel);
  }

  /** Rooms for `newMessage` and `syncDelete` (a visitor room may be among them). */
  async messageAudience(trx: Trx, ticket: AudienceTicket): Promise<string[]> {
    const rule = this.rules.get(ticket.channel);
    return rule ? rule.audience(trx, ticket) : [];
  }

  /** Rooms for notes, reactions and pins: the same minus any visitor room (a note is never a visitor's). */
  async staffAudience(trx: Trx, ticket: AudienceTicket): Promise<string[]> {
    return staffOf(await this.messageAudience(trx, ticket));
  }

  /** Whether the user may read and write the conversation; history, sending and joining all ask this. */
  async canRead(db: Kysely<Database>, ticket: AudienceTicket, userId: number): Promise<boolean> {
    const rule = this.rules.get(ticket.channel);
    return rule ? rule.access(db, ticket, userId) : false;
  }
}
