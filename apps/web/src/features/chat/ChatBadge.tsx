import type { ChatListAnswer } from '@parley/contracts';
import { useEffect } from 'react';
import { api } from '../../lib/http';
import { realtime } from '../../lib/realtime';
import { shell } from '../../lib/shellStore';

/**
 * CHAT-05, SHELL-34: the Workspace tab's badge while any chat has unread messages. Mounted once in the
 * signed-in app; it asks for the first page's totals on start, on reconnect, and (at most once a second)
 * after conversation events, since a chat's messages reach only its members.
 */
export function ChatBadge() {
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    let stopped = false;
    const load = async () => {
      timer = null;
      try {
        const r = await api<ChatListAnswer>('GET', '/api/chat/list?offset=0');
        if (!stopped) shell.set({ chatBadge: r.unread > 0, chatUnread: r.unread });
      } catch {
        // Signed out or offline: the next event or reconnect asks again.
      }
    };
    const soon = () => {
      if (!timer) timer = setTimeout(() => void load(), 1000);
    };
    void load();
    const offs = [
      realtime.on('newMessage', soon),
      realtime.on('participantChanged', soon),
      realtime.onState((up) => up && soon()),
    ];
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      for (const o of offs) o();
    };
  }, []);
  return null;
}
