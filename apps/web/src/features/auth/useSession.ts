import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, createElement, type ReactNode, useContext, useEffect, useMemo, useState } from 'react';
import { realtime } from '../../lib/realtime';
import { authApi } from './api';
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
  return useQuery({ queryKey: ['auth', 'setup'], queryFn: authApi.setupState, staleTime: Number.POSITIVE_INFINITY });
}

/** After sign-in or first run: check the session now, which switches the screens. */
export function useRefreshSession() {
  const { loop } = useSession();
  const qc = useQueryClient();
  return async () => {
    await qc.invalidateQueries({ queryKey: ['auth', 'setup'] });
    await loop.checkNow();
  };
}

/** Log Out: ends the session on the server, then shows sign-in. */
export function useSignOut() {
  const { loop } = useSession();
  return async () => {
    await authApi.signOut().catch(() => undefined);
    realtime.disconnect();
    loop.signedOut();
  };
}
