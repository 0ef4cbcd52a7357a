import {
  type ComponentType,
  createContext,
  type KeyboardEvent,
  type ReactNode,
  type RefObject,
  useContext,
} from 'react';

/** What the canned-reply picker fills variables from: the open ticket. */
export interface ReplyTicket {
  ticket_number: number;
  title: string;
  name: string;
  email: string;
  channel: string;
  /** MSG-52: the customer's language ('' unknown): a reply can be translated into it. */
  language?: string;
}

/** A message's sender, whose profile opens from the message. */
export interface SenderTarget {
  sender: string;
  /** The ticket of the message: a `visitor` sender is that ticket's contact (or the live chat visitor). */
  ticketId?: number;
  /** A shown name while the profile loads. */
  name?: string;
}

/**
 * What the conversation shows from other features: the composer's `/` canned-reply picker (replies), a
 * message sender's profile (profile) and the knowledge-base popup (kb). The screen that composes the pane (in app/) provides them, so the
 * conversation imports no other feature.
 */
export interface ConversationParts {
  /** Called by each composer on every render, like any hook; `picker` is drawn above the text. */
  useReplyPicker(options: {
    text: string;
    setText(text: string): void;
    ticket: ReplyTicket | undefined;
    agent: { name: string; username: string };
    input: RefObject<HTMLTextAreaElement | null>;
  }): { picker: ReactNode; onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>): boolean; onCaret(caret: number): void };
  SenderProfile: ComponentType<{ target: SenderTarget; onClose(): void }>;
  /** SHELL-31: the knowledge-base popup (kb); `onInsert` puts an article's text or link into the reply box. */
  KnowledgePopup: ComponentType<{ onClose(): void; onInsert(text: string): void }>;
}

const PartsContext = createContext<ConversationParts | null>(null);

/** Gives the conversation below it the other features' parts. */
export const ConversationPartsProvider = PartsContext.Provider;

export function useConversationParts(): ConversationParts {
  const parts = useContext(PartsContext);
  if (!parts) throw new Error('The conversation needs a ConversationPartsProvider (app/ composes it)');
  return parts;
}
