import type { TicketLoadAnswer } from '@parley/contracts';
import { useEffect } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { api } from '../../lib/http';

const KINDS = { '/ticket': 'ticket', '/livechat': 'livechat' } as const;

/** The id of the caller's ticket (or live chat) with this number, or null when they cannot see one. */
export async function findConversation(kind: 'ticket' | 'livechat', number: number): Promise<number | null> {
  const r = await api<TicketLoadAnswer>(
    'GET',
    `/api/ticket/load/me/all/${kind}/0?field=ticket_number&fieldValue=${number}`,
  );
  return r.data.find((t) => t.ticket_number === number)?.id ?? null;
}

/**
 * NOTIF-06 (design): the links of notifications, Web Pushes and browser notifications name a conversation by
 * its number (`/ticket?number=N`, `/livechat?number=N`); the screens open one by id (`/ticket/<id>`,
 * `/livechat/<id>`). Wherever such a link lands (View, a service-worker click, a typed address), the number is
 * looked up in the caller's own list and the address replaced. A number the caller cannot see, or a failed
 * call, leaves the list as it is.
 */
export function useOpenLinkedConversation(): void {
  const { pathname, search } = useLocation();
  const navigate = useNavigate();
  useEffect(() => {
    const kind = KINDS[pathname as keyof typeof KINDS];
    const number = new URLSearchParams(search).get('number') ?? '';
    if (!kind || !/^\d{1,15}$/.test(number)) return;
    let current = true;
    findConversation(kind, Number(number))
      .then((id) => current && id !== null && navigate(`/${kind}/${id}`, { replace: true }))
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [pathname, search, navigate]);
}
