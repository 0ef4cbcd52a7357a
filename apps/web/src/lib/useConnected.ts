import { useSyncExternalStore } from 'react';
import { realtime } from './realtime';

/** Whether the realtime socket is connected now. */
export function useConnected(): boolean {
  return useSyncExternalStore(
    (l) => realtime.onState(l),
    () => realtime.connected,
  );
}
