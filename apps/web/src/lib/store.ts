import { useRef, useSyncExternalStore } from 'react';

/** Something outside React that a component reads and is told of changes to. */
export interface Readable<T> {
  get(): T;
  subscribe(listener: () => void): () => void;
}

/** A value held outside React (module state that outlives the screens reading it). */
export interface Store<T> extends Readable<T> {
  /** Replaces the value (or derives it from the current one) and tells every reader. */
  set(next: T | ((current: T) => T)): void;
  /** Tells every reader to read again: for a store whose `get` reads state kept elsewhere (a cookie). */
  notify(): void;
}

/**
 * The web app's one external-store shape: `useStore` reads it in a component, anything else calls `get`,
 * `set` and `subscribe`. `read` (optional) replaces the held value as what `get` answers, for state that
 * lives elsewhere and only needs its changes announced.
 */
export function createStore<T>(initial: T, read?: () => T): Store<T> {
  let value = initial;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const l of [...listeners]) l();
  };
  return {
    get: read ?? (() => value),
    set(next) {
      value = typeof next === 'function' ? (next as (current: T) => T)(value) : next;
      notify();
    },
    notify,
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

/**
 * Reads a store in a component, re-rendering when it changes. `pick` may build a new object: it is kept
 * until the store's value changes, so a component re-renders only for a new state.
 */
export function useStore<T>(store: Readable<T>): T;
export function useStore<T, S>(store: Readable<T>, pick: (value: T) => S): S;
export function useStore<T, S>(store: Readable<T>, pick?: (value: T) => S): T | S {
  const cache = useRef<{ from: T; picked: S } | null>(null);
  return useSyncExternalStore(store.subscribe, () => {
    const value = store.get();
    if (!pick) return value;
    if (cache.current === null || !Object.is(cache.current.from, value))
      cache.current = { from: value, picked: pick(value) };
    return cache.current.picked;
  });
}
