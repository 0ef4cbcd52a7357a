import type { LiveChatUnreadAnswer } from '@parley/contracts';
import type { QueryClient } from '@tanstack/react-query';
import { liveChatKeys } from '../../lib/queryKeys';
import { realtime } from '../../lib/realtime';

/**
 * RT-19: asks the server how many live chats this user has unread (`refreshLiveChatUnreadCount`) and puts
 * the answer where the Live Chats badge reads it. The pane does it once a read of a live chat is stored.
 * Resolves with the count, or null when the socket is down or the server could not say.
 */
export async function refreshLiveChatUnread(qc: QueryClient): Promise<number | null> {
  try {
    const r = await realtime.request<LiveChatUnreadAnswer>('refreshLiveChatUnreadCount');
    if (!r.ok) return null;
    qc.setQueryData(liveChatKeys.unread, r.unread);
    return r.unread;
  } catch {
    return null;
  }
}
