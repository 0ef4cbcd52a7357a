import type { OnlineUser } from '@parley/contracts';
import { useQuery } from '@tanstack/react-query';
import { useCallback } from 'react';
import { api } from './http';
import { statusKeys } from './queryKeys';

/**
 * Names of people, as everyone should read them: an agent's display name (never a bare username when a name
 * is known), and the customer's name for a customer's message (never "visitor").
 */
export function useDisplayName(): (username: string) => string {
  const team = useTeam();
  return useCallback(
    (username: string) => {
      const u = team?.find((x) => x.username.toLowerCase() === username.toLowerCase());
      return u?.name?.trim() || username;
    },
    [team],
  );
}

/** The people of the account (username, name, status), as `/status/get` lists them; undefined until read. */
export function useTeam(): OnlineUser[] | undefined {
  return useQuery({
    queryKey: statusKeys.online,
    queryFn: () => api<{ result: 'success'; data: OnlineUser[] }>('GET', '/status/get').then((r) => r.data),
    staleTime: 60_000,
  }).data;
}

/** The senders that are not a person of the team: the customer and the server's own voices. */
export const CUSTOMER_SENDER = 'visitor';

/** A customer's name for a message: the name stored with it, else the ticket's customer, else "Customer". */
export function customerName(senderName: string, fallback = ''): string {
  const n = senderName.trim();
  return n && n.toLowerCase() !== CUSTOMER_SENDER ? n : fallback.trim() || 'Customer';
}
