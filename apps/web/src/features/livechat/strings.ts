/** The visitor details beside a live chat (the spec names none of these words). */
export const VISITOR_DETAILS_TEXT = {
  title: 'Details',
  toggle: 'Visitor details',
  close: 'Close details',
  failed: 'The visitor details could not be loaded.',
  unknown: 'Not given',
  email: 'E-mail',
  phone: 'Phone',
  ic: 'IC',
  page: 'Came from',
  browser: 'Browser',
  pastChats: 'Earlier chats',
  pastTickets: 'Tickets of this contact',
  none: 'None',
  notAccepted: 'Not taken',
  state: (s: string) =>
    ({ queued: 'Waiting', chatting: 'Running', ended: 'Ended', converted: 'Converted', offline: 'Message left' })[s] ??
    s,
} as const;
