import { SHELL_STRINGS } from '@parley/contracts';
import { HttpError } from './http';
import { createStore, useStore } from './store';

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
  /** Unread live chats or a waiting queue; unread Workspace chat. */
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

const store = createStore(initial);

export const shell = {
  get: store.get,
  set: (patch: Partial<ShellState>) => store.set((s) => ({ ...s, ...patch })),
  reset: () => store.set(initial),
  subscribe: store.subscribe,
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
  return useStore(store, pick);
}
