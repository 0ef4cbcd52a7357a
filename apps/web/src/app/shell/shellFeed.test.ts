import { describe, expect, it } from 'vitest';
import {
  boardChanged,
  conversationPath,
  isMyNewCustomerMessage,
  newMessageText,
  rememberStatuses,
  showsConversations,
  ticketsUnread,
  unreadTotal,
} from './shellFeed';

describe('what the shell reads from conversation events', () => {
  it('SHELL-40 the title total adds unread tickets, live chats and Workspace chats (the chat row once)', () => {
    const counts = [
      { type: 'ticket' as const, count: 2 },
      { type: 'livechat' as const, count: 1 },
      { type: 'chat' as const, count: 5 },
    ];
    expect(unreadTotal(counts, 3)).toBe(6);
    expect(unreadTotal(undefined, 0)).toBe(0);
  });

  it('NAV-05 the Tickets badge is an unread ticket, not a live chat', () => {
    expect(ticketsUnread([{ type: 'livechat', count: 4 }])).toBe(false);
    expect(ticketsUnread([{ type: 'ticket', count: 1 }])).toBe(true);
    expect(ticketsUnread(undefined)).toBe(false);
  });

  it('NAV-10 NAV-27 the board changed: a new ticket, or a known ticket whose status moved', () => {
    const known = new Map<number, number>();
    expect(boardChanged(known, 'created', { id: 1, closed: 0 })).toBe(true);
    expect(boardChanged(known, 'updated', { id: 1, closed: 0 })).toBe(false); // a message, a label...
    expect(boardChanged(known, 'updated', { id: 1, closed: 2 })).toBe(true);
    expect(boardChanged(known, 'updated', { id: 9, closed: 2 })).toBe(false); // status before unknown
    rememberStatuses(known, { pages: [{ data: [{ id: 4, closed: 1 }] }], pageParams: [0] });
    rememberStatuses(known, { data: [{ id: 5, closed: 0 }] });
    rememberStatuses(known, [{ id: 6, closed: 3 }, { nope: true }]);
    expect(boardChanged(known, 'updated', { id: 4, closed: 3 })).toBe(true);
    expect(boardChanged(known, 'updated', { id: 5, closed: 0 })).toBe(false);
    expect(boardChanged(known, 'updated', { id: 6, closed: 0 })).toBe(true);
  });

  it('SHELL-58 a toast is for a fresh customer message in a conversation assigned to me', () => {
    const now = 1_000_000;
    const t = { assignee: 'amy', last_message_at: now - 500, updated_at: now - 500 };
    expect(isMyNewCustomerMessage(t, 'amy', now)).toBe(true);
    expect(isMyNewCustomerMessage(t, 'bob', now)).toBe(false);
    expect(isMyNewCustomerMessage({ ...t, updated_at: now }, 'amy', now)).toBe(false); // an agent's change
    expect(isMyNewCustomerMessage(t, 'amy', now + 120_000)).toBe(false); // replayed after a reconnect
    expect(newMessageText({ name: 'Zoe', title: 'Zoe' })).toBe('Zoe wrote a new message.');
    expect(newMessageText({ name: 'Zoe', title: 'Order 55' })).toBe('Zoe wrote in "Order 55".');
    expect(conversationPath({ id: 3, channel: 'LIVECHAT' })).toBe('/livechat/3');
    expect(conversationPath({ id: 3, channel: 'chat' })).toBe('/chat/3');
    expect(conversationPath({ id: 3, channel: 'EMAIL' })).toBe('/ticket/3');
    expect(showsConversations('/livechat/3')).toBe(true);
    expect(showsConversations('/settings/users')).toBe(false);
    expect(showsConversations('/tickets-report')).toBe(false);
  });
});
