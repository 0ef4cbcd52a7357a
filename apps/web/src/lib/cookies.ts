import { PREFERENCE_COOKIE_DAYS } from '@parley/contracts';

export function getCookie(name: string): string | undefined {
  for (const part of document.cookie.split('; ')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq) === name) return decodeURIComponent(part.slice(eq + 1));
  }
  return undefined;
}

/** A preference cookie: readable by the app, kept about a year (SHELL-65, NAV-32, NAV-39). */
export function setCookie(name: string, value: string, days = PREFERENCE_COOKIE_DAYS): void {
  const maxAge = Math.round(days * 86_400);
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is not in every browser we support
  document.cookie = `${name}=${encodeURIComponent(value)}; Max-Age=${maxAge}; Path=/; SameSite=Lax`;
}

/** localStorage that never throws (private windows, full quota): preferences are a convenience. */
export const local = {
  get<T>(key: string, fallback: T): T {
    try {
      const raw = localStorage.getItem(key);
      return raw === null ? fallback : (JSON.parse(raw) as T);
    } catch {
      return fallback;
    }
  },
  set(key: string, value: unknown): void {
    try {
      localStorage.setItem(key, JSON.stringify(value));
    } catch {
      // A preference that cannot be kept is simply not kept.
    }
  },
};
