import type { Message } from '@parley/contracts';

/** The state of one conversation in the query cache (`conversationKeys.one`): the pane fills it, others read it. */
export interface ConversationData {
  ticketId: number;
  /** The conversation's channel (from the history call): picks the composer and the read event. */
  channel?: string;
  /** Oldest first, contiguous, at most MESSAGE_WINDOW. */
  messages: Message[];
  /** Every message of the conversation (the count entry). */
  count: number;
  /** Older messages exist before the window. */
  olderOut: boolean;
  /** Newer messages exist after the window (the user scrolled up and the newest were let go). */
  newerOut: boolean;
  /** Unix seconds of the server when this conversation was last checked (the next check's `ts`). */
  ts: number;
}
