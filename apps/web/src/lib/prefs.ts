import type { MantineColorScheme, MantineColorSchemeManager } from '@mantine/core';
import { COOKIES } from '@parley/contracts';
import { getCookie, setCookie } from './cookies';
import { createStore, useStore } from './store';

/**
 * SHELL-65: the theme lives in two cookies of about a year: `dark` (the toggle) and `auto_dark` (follow the
 * system). With neither set, the theme follows the system.
 */
export function cookieColorSchemeManager(): MantineColorSchemeManager {
  return {
    get: () => {
      const auto = getCookie(COOKIES.autoDark);
      const dark = getCookie(COOKIES.dark);
      if (auto === '1' || (auto === undefined && dark === undefined)) return 'auto';
      return dark === '1' ? 'dark' : 'light';
    },
    set: (value: MantineColorScheme) => {
      setCookie(COOKIES.autoDark, value === 'auto' ? '1' : '0');
      if (value !== 'auto') setCookie(COOKIES.dark, value === 'dark' ? '1' : '0');
    },
    subscribe: () => {},
    unsubscribe: () => {},
    clear: () => {
      setCookie(COOKIES.autoDark, '', -1);
      setCookie(COOKIES.dark, '', -1);
    },
  };
}

/** A boolean preference kept in a cookie of about a year, shared by every component that reads it. */
function cookieFlag(name: string, fallback: boolean) {
  // The cookie is the value (read on every render, as another tab may have changed it); the store announces writes.
  const store = createStore(fallback, () => {
    const v = getCookie(name);
    return v === undefined ? fallback : v === '1';
  });
  return {
    store,
    write(v: boolean) {
      setCookie(name, v ? '1' : '0');
      store.notify();
    },
  };
}

/** SHELL-66, SHELL-67: rich links turn a bare URL in a message into a preview card. On by default. */
export const richLinks = cookieFlag(COOKIES.richLink, true);
export const avatarHintSeen = cookieFlag(COOKIES.avatarHint, false);

export function useCookieFlag(flag: ReturnType<typeof cookieFlag>): [boolean, (v: boolean) => void] {
  const value = useStore(flag.store);
  return [value, flag.write];
}
