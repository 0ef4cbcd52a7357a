import { ConversationPane } from '../../features/conversation/ConversationPane';
import { type ConversationParts, ConversationPartsProvider } from '../../features/conversation/parts';
import { KbPopup } from '../../features/kb/KbPopup';
import { ProfileModal } from '../../features/profile/ProfileModal';
import { useCannedReplyPicker } from '../../features/replies/CannedReplyPicker';

const parts: ConversationParts = {
  useReplyPicker: useCannedReplyPicker,
  SenderProfile: ProfileModal,
  KnowledgePopup: KbPopup,
};

/**
 * The conversation pane with what it shows from other features: the composer's canned-reply picker
 * (replies), a sender's profile (profile) and the knowledge-base popup (kb). Every screen with a conversation uses this one: a ticket,
 * a Workspace chat, a live chat.
 */
export function Conversation({ ticketId }: { ticketId: number }) {
  return (
    <ConversationPartsProvider value={parts}>
      <ConversationPane ticketId={ticketId} />
    </ConversationPartsProvider>
  );
}
