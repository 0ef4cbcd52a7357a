import { useSession } from '../../lib/session';

/** The signed-in user is an admin: the one who keeps the catalogue. */
export function useIsAdmin(): boolean {
  const { state } = useSession();
  return state.phase === 'signedIn' && state.session.type === 'admin';
}
