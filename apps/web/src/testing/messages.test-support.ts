import { type Message, noAiResults } from '@parley/contracts';

/** A stored message for tests (ticket 7 unless `extra` says otherwise): the same shape as the server's. */
export const msg = (id: number, extra: Partial<Message> = {}): Message => ({
  id,
  ticketId: 7,
  type: 'text',
  message: `m${id}`,
  sender: 'ann',
  senderName: 'Ann',
  ts: 0,
  created_at: new Date(2026, 10, 20, 10, 0).getTime() + id * 60_000,
  client_id: null,
  isSender: true,
  unread: false,
  reply: null,
  reply_id: null,
  notes: [],
  reactions: [],
  reactions_2: {},
  pinned: false,
  emotion_2: {},
  context: '',
  translated_text: {},
  ...noAiResults(),
  files: [],
  email: null,
  ...extra,
});
