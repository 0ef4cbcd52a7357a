import type { ProfileAnswer, ProfileListAnswer } from '@parley/contracts';
import { api } from '../../lib/http';

const q = (o: Record<string, string | number | undefined>) =>
  new URLSearchParams(
    Object.entries(o)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, String(v)]),
  ).toString();

/** The profile modal's calls (PROFILE-08, PROFILE-09, PROFILE-11). */
export const profileApi = {
  /** A user (by username) or a contact (by uid): data and a page of activity (5). */
  person: (username: string, offset: number) =>
    api<ProfileAnswer>('GET', `/api/user/profile/data/info?${q({ username, offset })}`),
  /** A ticket's contact: data and a page of activity (5). */
  contact: (ticketId: number, offset: number) =>
    api<ProfileAnswer>('GET', `/api/user/profile/${offset}?${q({ mode: 'quick', id: ticketId })}`),
  /** Tickets or live chats (10 a page), with exp and level. */
  list: (type: 'ticket' | 'livechat', username: string, offset: number) =>
    api<ProfileListAnswer>('GET', `/api/ticket/user/list?${q({ type, username, offset })}`),
};
