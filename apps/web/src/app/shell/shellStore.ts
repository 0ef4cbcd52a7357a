import { useRef, useSyncExternalStore } from 'react';

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
  /** NAV-05, NAV-10, NAV-27: set by the tickets and kanban features. */
  ticketUnread: boolean;
  kanbanNotify: boolean;
  /** DECISIONS 2: unread live chats or a waiting queue; unread Workspace chat. */
  liveChatBadge: boolean;
  chatBadge: boolean;
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
