import { SHELL_STRINGS } from '@parley/contracts';
import { useRef, useSyncExternalStore } from 'react';
import { HttpError } from './http';

/** What the shell shows around the screens: modals, panels and flags any feature may open. */
export interface ShellState {
  myStatusOpen: boolean;
  /** SHELL-53: the settings modal is opened on a section index (17: subscriptions and billing). */
  settingsSection: number | null;
  upgradeOpen: boolean;
  logoutConfirmOpen: boolean;
  removalOpen: boolean;
  imageUrl: string | null;
  profileUserId: number | null;
  errorMessage: string | null;
  /** SHELL-56: a sound was blocked until the user interacts with the page. */
  interactionRequired: boolean;
  debugOpen: boolean;
  /** SHELL-62: Alt is held. */
  altMode: boolean;
  /** SHELL-40: unread conversations, for the page title. */
  unread: number;
  /** NAV-05, NAV-10, NAV-27: set from the conversation events by useShellFeed. */
  ticketUnread: boolean;
  kanbanNotify: boolean;
  /** DECISIONS 2: unread live chats or a waiting queue; unread Workspace chat. */
  liveChatBadge: boolean;
  chatBadge: boolean;
  /** Workspace chats with unread messages (the chat list's total), for the page title. */
  chatUnread: number;
}

const initial: ShellState = {
  myStatusOpen: false,
  settingsSection: null,
  upgradeOpen: false,
  logoutConfirmOpen: false,
  removalOpen: false,
  imageUrl: null,
  profileUserId: null,
  errorMessage: null,
  interactionRequired: false,
  debugOpen: false,
  altMode: false,
  unread: 0,
  ticketUnread: false,
  kanbanNotify: false,
  liveChatBadge: false,
  chatBadge: false,
  chatUnread: 0,
};

let state = initial;
const listeners = new Set<() => void>();

export const shell = {
  get: () => state,
  set(patch: Partial<ShellState>) {
    state = { ...state, ...patch };
    for (const l of listeners) l();
  },
  reset() {
    state = initial;
    for (const l of listeners) l();
  },
  subscribe(l: () => void) {
    listeners.add(l);
    return () => {
      listeners.delete(l);
    };
  },
  openSettings: (section: number) => shell.set({ settingsSection: section }),
  showError: (message: string) => shell.set({ errorMessage: message }),
  /** ERR-01, ERR-03: "Error!" with what did not happen and why (the server's words, or that it was not reached). */
  showFailure: (what: string, err: unknown) =>
    shell.showError(
      `${what} ${err instanceof HttpError && err.status !== 0 ? err.description : SHELL_STRINGS.unreachable}`,
    ),
  showRemoval: () => shell.set({ removalOpen: true }),
  showImage: (url: string) => shell.set({ imageUrl: url }),
};

/** Reads part of the shell state; a pick may build a new object, it is kept until the state changes. */
export function useShell<T>(pick: (s: ShellState) => T): T {
  const cache = useRef<{ s: ShellState; v: T } | null>(null);
  return useSyncExternalStore(shell.subscribe, () => {
    if (cache.current?.s !== state) cache.current = { s: state, v: pick(state) };
    return cache.current.v;
  });
}
