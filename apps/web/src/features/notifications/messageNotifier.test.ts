import type { NewMessageEvent, TicketUpdated } from '@parley/contracts';
import { describe, expect, it } from 'vitest';
import { noticeFor } from './messageNotifier';

const now = 1_800_000_000_000;
const msg = (over: Partial<NewMessageEvent> = {}) =>
  ({
    id: 41,
    ticketId: 7,
    type: 'text',
    message: 'Hello <b>there</b>',
    sender: 'dora@example.net',
    senderName: 'Dora',
    created_at: now - 1_000,
    files: [],
    ...over,
  }) as NewMessageEvent;
const ticket = (over: Partial<TicketUpdated> = {}) =>
  ({ id: 7, ticket_number: 12, channel: 'EMAIL', assignee: 'ann', ...over }) as TicketUpdated;
const on = () => true;

describe('browser notification of a new message (NOTIF-37)', () => {
  it('NOTIF-37 a message in my ticket: title, plain body, the tag of its Web Push, the link by channel', () => {
    expect(noticeFor(msg(), ticket(), 'ann', now, on)).toEqual({
      title: 'Dora (#12)',
      body: 'Hello there',
      tag: 'message-41',
      url: '/ticket?number=12',
    });
    expect(noticeFor(msg(), ticket({ channel: 'livechat', assignee: '' }), 'ann', now, on)?.url).toBe(
      '/livechat?number=12',
    );
    expect(
      noticeFor(msg({ message: '', files: [{ fileName: 'a.pdf' }] as never }), ticket(), 'ANN', now, on)?.body,
    ).toBe('Sent a file: a.pdf');
  });

  it('CRYPT-11 an encrypted message is announced without its envelope', () => {
    const sealed =
      '{"e2e":1,"m":"aes","kid":"0123456789abcdef","iv":"AAAAAAAAAAAAAAAA","ct":"AAAAAAAAAAAAAAAAAAAAAAAA"}';
    expect(noticeFor(msg({ message: sealed }), ticket(), 'ann', now, on)?.body).toBe('New encrypted message');
  });

  it('NOTIF-37 none for my own, system or stale messages, Workspace chats, or tickets of someone else', () => {
    expect(noticeFor(msg({ sender: 'Ann' }), ticket(), 'ann', now, on)).toBeNull();
    expect(noticeFor(msg({ type: 'system' }), ticket(), 'ann', now, on)).toBeNull();
    expect(noticeFor(msg({ sender: 'server' }), ticket(), 'ann', now, on)).toBeNull();
    expect(noticeFor(msg({ created_at: now - 120_000 }), ticket(), 'ann', now, on)).toBeNull();
    expect(noticeFor(msg(), ticket({ channel: 'chat' }), 'ann', now, on)).toBeNull();
    expect(noticeFor(msg(), ticket({ assignee: 'bob' }), 'ann', now, on)).toBeNull();
    expect(noticeFor(msg(), ticket({ assignee: '' }), 'ann', now, on)).not.toBeNull();
  });

  it('NOTIF-37 NOTIF-38 the per-channel choice decides; GRAPH_EMAIL follows Email', () => {
    const asked: string[] = [];
    const offEmail = (c: string) => {
      asked.push(c);
      return c !== 'EMAIL';
    };
    expect(noticeFor(msg(), ticket({ channel: 'GRAPH_EMAIL' }), 'ann', now, offEmail)).toBeNull();
    expect(noticeFor(msg(), ticket({ channel: 'WHATSAPP' }), 'ann', now, offEmail)).not.toBeNull();
    expect(asked).toEqual(['EMAIL', 'WHATSAPP']);
  });
});
