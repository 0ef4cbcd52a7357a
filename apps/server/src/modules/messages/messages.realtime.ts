import { rooms } from '@parley/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { Trx } from '../../platform/outbox/index.js';

/** The ticket a message event belongs to, as an audience rule sees it. */
export interface AudienceTicket {
  id: number;
  accountId: number;
  channel: string;
}
export type AudienceRule = (trx: Trx, ticket: AudienceTicket) => Promise<string[]>;

const rules = new Map<string, AudienceRule>();

/**
 * Who receives a conversation's events, decided once per channel (STYLE: one place per audience). By
 * default everyone in the account: agents may open any ticket of their account. Live chat adds the
 * visitor's room; Workspace chats go to their members only. Notes and reactions use `staffAudience`.
 */
export function registerAudience(channel: string, rule: AudienceRule): void {
  rules.set(channel, rule);
}

/** Rooms for `newMessage` and `syncDelete` (a visitor room may be among them). */
export async function messageAudience(trx: Trx, ticket: AudienceTicket): Promise<string[]> {
  const rule = rules.get(ticket.channel) ?? rules.get(ticket.channel.toUpperCase());
  return rule ? rule(trx, ticket) : [rooms.account(ticket.accountId)];
}

/** Rooms for notes, reactions and pins: the same minus any visitor room (a note is never a visitor's). */
export async function staffAudience(trx: Trx, ticket: AudienceTicket): Promise<string[]> {
  return staffOf(await messageAudience(trx, ticket));
}

/** The staff part of a message audience (for callers that have the message audience already). */
export const staffOf = (messageRooms: string[]): string[] => messageRooms.filter((r) => !r.startsWith('visitor:'));

/** Whether a user may read and write a conversation, by channel; by default any user of the account. */
export type AccessRule = (db: Kysely<Database>, ticket: AudienceTicket, userId: number) => Promise<boolean>;
const access = new Map<string, AccessRule>();

/** Workspace chats register "members only" here; history, sending and joining all ask `canRead`. */
export function registerAccess(channel: string, rule: AccessRule): void {
  access.set(channel, rule);
}

export async function canRead(db: Kysely<Database>, ticket: AudienceTicket, userId: number): Promise<boolean> {
  const rule = access.get(ticket.channel);
  return rule ? rule(db, ticket, userId) : true;
}
