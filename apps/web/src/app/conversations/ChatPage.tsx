import { lazy } from 'react';
// The screen is loaded lazily by the routes, so it comes from its own file (not the feature's index).
import { ChatScreen } from '../../features/chat/ChatScreen';

const Pane = lazy(() => import('./Conversation').then((m) => ({ default: m.Conversation })));

/** CHAT-01: the Workspace chats, with the conversation pane of the open chat. */
export function ChatPage() {
  return <ChatScreen Pane={Pane} />;
}
