/**
 * The visitor page's words and socket namespace, without zod: the widget's light visitor page
 * imports this file alone (`@parley/contracts/visitor`) to stay within its 60 kB budget.
 */

/** The spec's words on the visitor page, exactly as written (typos included). */
export const VISITOR_STRINGS = {
  pleaseWait: 'Please wait...',
  invalidLink: 'Invalid link',
  invalidLinkBody: 'This link maybe used or deleted. Please request a link from your live chat provider again.',
  convertedTitle: 'Live Chat Converted',
  convertedBody: 'Your live chat has been converted to ticket, thank you!',
  endedTitle: 'Live Chat Ended',
  endedBody: 'Thank you for contacting us!',
  queueNumber: (n: number) => `Your queue number is ${n}`,
  disconnected: 'You have disconnected from server.',
  checkConnection: 'Please check your internet connection and try again.',
  empty: 'This cannot be empty.',
  ratingRequired: 'Please fill in.',
  reasonRequired: 'Please tell us what should we improve!',
  continue: 'Continue',
  connect: 'Connect',
  submit: 'Submit',
  close: 'Close',
  /** VISITOR-19 (design): the offline variant's message. */
  offline: 'No agent is available right now. Leave us a message and we will get back to you.',
  /** Design: after the offline Submit. */
  offlineSent: 'Thank you! Your message has been sent.',
  /** Design: the start view. */
  welcome: 'Chat with us',
  welcomeBody: 'An agent is available. Press Continue to start a live chat.',
  name: 'Name',
  phone: 'Phone',
  email: 'Email',
  message: 'Message',
  waiting: 'Waiting for an agent...',
  accepted: 'An agent has accepted your chat.',
  send: 'Send',
  typeMessage: 'Type a message',
  rateTitle: 'How was your chat?',
  reason: 'Reason',
  rated: 'Thank you for your feedback!',
  ended: 'This live chat has ended.',
  sessionEnded: 'Your session has ended.',
  tooFast: 'Too many requests. Please wait a moment and try again.',
  /** The widget's launcher button. */
  launcher: 'Chat with us',
  /** PLAN-21 (design): the ended views' transcript button (TRANSCRIPT_STRINGS has the server's words). */
  sendTranscript: 'Send transcript',
  transcriptHint: 'Get a copy of this chat by e-mail.',
  transcriptSent: (to: string) => `The transcript was sent to ${to}.`,
} as const;

/** The visitor socket's namespace. */
export const VISITOR_NAMESPACE = '/visitor';
