import type { InteractionKind } from '@parley/contracts';

/** Every word the Interactions screen shows, in one place so it can be translated. */
export const INTERACTIONS_TEXT = {
  title: 'Interactions',
  intro:
    'Everything the team did, newest first: messages in and out on every channel, notes, changes, live chats and calls.',
  filters: 'Filters',
  kind: 'Kind',
  allKinds: 'All kinds',
  channel: 'Channel',
  allChannels: 'All channels',
  agent: 'Agent',
  everyone: 'Everyone',
  from: 'From',
  to: 'To',
  search: 'Search',
  searchPlaceholder: 'Text contains…',
  clear: 'Clear filters',
  loadMore: 'Load more',
  loading: 'Loading interactions',
  empty: 'No interactions match these filters.',
  emptyAll:
    'Nothing has happened in this workspace yet. Messages, notes, changes, live chats and calls show here as they happen.',
  end: 'That is everything.',
  failed: 'The interactions could not be loaded.',
  retry: 'Try again',
  newItems: 'New interactions',
  encrypted: 'Encrypted message',
  customer: 'Customer',
  system: 'Parley',
  visitor: 'Visitor',
  waiting: 'Waiting in the queue',
  liveChatQueue: 'Live chat queue',
  ticket: (n: number | null, title: string) => (n === null ? title : `#${n} ${title}`),
  call: (direction: string, duration: string) =>
    `${direction === 'outbound' ? 'Outgoing' : direction === 'inbound' ? 'Incoming' : 'A'} call, ${duration}`,
  liveChatState: {
    queued: 'waiting',
    chatting: 'in progress',
    ended: 'ended',
    converted: 'turned into a ticket',
    offline: 'left a message while offline',
    left: 'the visitor left',
  } as Record<string, string>,
} as const;

/** The name of each kind, as the filter and each item's label read it. */
export const KIND_LABELS: Record<InteractionKind, string> = {
  in: 'Customer message',
  out: 'Team reply',
  note: 'Note',
  change: 'Change',
  livechat: 'Live chat',
  call: 'Call',
};
