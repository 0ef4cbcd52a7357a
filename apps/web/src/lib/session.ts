import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, createElement, type ReactNode, useContext, useEffect, useMemo, useState } from 'react';
import { authApi } from './api/auth';
import { authKeys } from './queryKeys';
import { realtime } from './realtime';
import { SessionLoop, type SessionState } from './sessionLoop';

const SessionContext = createContext<{ state: SessionState; loop: SessionLoop } | null>(null);

/** Runs the session loop for the whole app and shares its state. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const qc = useQueryClient();
  const loop = useMemo(
    () =>
      new SessionLoop({
        check: authApi.check,
        reload: () => window.location.reload(),
        resync: () => {
          void qc.invalidateQueries();
          realtime.reconnect();
        },
        setTimer: (fn, ms) => window.setTimeout(fn, ms),
        clearTimer: (t) => window.clearTimeout(t as number),
      }),
    [qc],
  );
  const [state, setState] = useState<SessionState>(loop.state);
  useEffect(() => {
    const off = loop.subscribe(setState);
    void loop.checkNow();
    return () => {
      off();
      loop.stop();
    };
  }, [loop]);
  return createElement(SessionContext.Provider, { value: { state, loop } }, children);
}

export function useSession() {
  const ctx = useContext(SessionContext);
  if (!ctx) throw new Error('useSession needs a SessionProvider');
  return ctx;
}

export function useSetupState() {
  return useQuery({ queryKey: authKeys.setup, queryFn: authApi.setupState, staleTime: Number.POSITIVE_INFINITY });
}

/** After sign-in or first run: check the session now, which switches the screens. */
export function useRefreshSession() {
  const { loop } = useSession();
  const qc = useQueryClient();
  return async () => {
    await qc.invalidateQueries({ queryKey: authKeys.setup });
    await loop.checkNow();
  };
}

/** Log Out: ends the session on the server, then shows sign-in. */
export function useSignOut() {
  const { loop } = useSession();
  return async () => {
    const out = await authApi.signOut().catch(() => undefined);
    realtime.disconnect();
    loop.signedOut();
    // Signed in through an identity provider that has a sign-out: end the session there too.
    if (out?.redirect) window.location.assign(out.redirect);
  };
}

/** The signed-in user as conversations and chats need it (empty values while signed out). */
export function useMe() {
  const { state } = useSession();
  const s = state.phase === 'signedIn' ? state.session : undefined;
  return {
    username: s?.adminUsername ?? '',
    name: s?.adminName ?? '',
    accountId: s?.accountId ?? 0,
    userId: s?.userId ?? 0,
    admin: s?.type === 'admin',
    /** admin, supervisor or agent ('' while signed out). */
    type: s?.type ?? '',
  };
}
