import { describe, expect, it } from 'vitest';
import { CampaignListQuery } from './campaigns.js';
import {
  channelName,
  channelPickName,
  isLiveChatChannel,
  PRIORITY_SORT_ORDER,
  parseTicketFilter,
  prioritySortRank,
  TICKET_LOAD2_STEP,
  TICKET_PAGE_SIZE,
  TicketLoadQuery,
  ticketStatusName,
} from './tickets.js';

describe('ticket rules', () => {
  it('TICKET-22 TICKET-23 status names; custom codes by name; anything else "?"', () => {
    expect([0, 1, 2, 3].map((c) => ticketStatusName(c))).toEqual(['Open', 'Pending', 'Resolved', 'Closed']);
    expect(ticketStatusName(4)).toBe('?');
    expect(ticketStatusName(7)).toBe('?');
    expect(ticketStatusName(7, [{ status_code: 7, name: 'Waiting on parts' }])).toBe('Waiting on parts');
  });

  it('TICKET-26 TICKET-67 TICKET-24 TICKET-22 filter words (solved = Resolved), default codes and custom codes (5 and up); nothing else', () => {
    expect(
      ['open', 'pending', 'solved', 'closed', 'all', '0', '1', '2', '3', '4', '5', '12'].map(parseTicketFilter),
    ).toEqual([0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 5, 12]);
    for (const bad of ['-1', 'resolved', 'SOLVED', 'OPEN', '01', '05', '', '1234567', 'constructor', 'toString'])
      expect(parseTicketFilter(bad)).toBeNull();
  });

  it('TICKET-18 TICKET-19 channel display names, livechat as LIVECHAT, unknown as is', () => {
    expect(channelName('FB_PM')).toBe('Facebook Messenger');
    expect(channelName('GRAPH_EMAIL')).toBe('Email');
    expect(channelName('livechat')).toBe('Live Chat');
    expect(channelName('chat')).toBe('Workspace');
    expect(channelName('PIGEON')).toBe('PIGEON');
    expect(channelPickName('GRAPH_EMAIL')).toBe('Microsoft 365 Email');
    expect(channelPickName('EMAIL')).toBe('Email');
    expect(channelPickName('FB_PM')).toBe('Facebook Messenger');
  });

  it('TICKET-19 a live chat under either stored spelling; no other channel', () => {
    expect(['LIVECHAT', 'livechat'].map(isLiveChatChannel)).toEqual([true, true]);
    expect(['chat', 'MANUAL', 'EMAIL', 'LiveChat', '', 'constructor'].some(isLiveChatChannel)).toBe(false);
  });

  it('TICKET-13 priority order H, none, M, L; TICKET-35 TICKET-38 sizes', () => {
    expect(['L', 'M', '', 'H'].sort((a, b) => prioritySortRank(a) - prioritySortRank(b))).toEqual([
      ...PRIORITY_SORT_ORDER,
    ]);
    expect(TICKET_PAGE_SIZE).toBe(30);
    expect(TICKET_LOAD2_STEP).toBe(10);
  });

  it('TICKET-30 TICKET-11 query: lists split, blanks ignored, sort defaults to updated', () => {
    expect(TicketLoadQuery.parse({ labelFilter: '1,2', priorityFilter: 'H,none', campaignId: '' })).toMatchObject({
      labelFilter: [1, 2],
      priorityFilter: ['H', 'none'],
      campaignId: undefined,
      sort: 'updated',
      received: 'updated',
    });
    expect(TicketLoadQuery.safeParse({ priorityFilter: 'X' }).success).toBe(false);
    expect(TicketLoadQuery.safeParse({ labelFilter: '1,abc' }).success).toBe(false);
    expect(CampaignListQuery.parse({})).toEqual({ pagination: 5, page: 1 });
  });
});
