import { MESSAGE_STRINGS, type Message, type MessageDeliveryEvent, RECENT_CONVERSATIONS } from '@parley/contracts';
import type { QueryClient } from '@tanstack/react-query';
import type { ConversationData } from '../../lib/conversationData';
import { conversationKeys } from '../../lib/queryKeys';
import { realtime } from '../../lib/realtime';
import { sealText } from '../../lib/sealText';
import { conversationApi, SocketDown, sendOverSocket } from './api';
import {
  addLive,
  applyCheck,
  applyDelivery,
  applyEmailState,
  applyPin,
  applyReaction,
  applyReading,
  asMessage,
  dropNote,
  holds,
  lastId,
  removeMessages,
  upsertNote,
} from './model';
import { nextToSend, outbox, toInput } from './outbox';

/**
 * The conversations cache and what keeps it true: TanStack Query holds each conversation under
 * `['conversation', id]`; the last RECENT_CONVERSATIONS opened stay, older ones are dropped. Live events
 * apply to every cached conversation (the account room delivers them whether a pane is open or not); after
 * a reconnect each cached conversation asks the server what it missed (MSG-44). The outbox is sent from
 * here, in order, whenever the socket is up.
 */

const recent: number[] = [];
/** Marks a conversation as recently opened; the eleventh oldest leaves the cache. */
export function touchRecent(qc: QueryClient, ticketId: number): void {
  const i = recent.indexOf(ticketId);
  if (i >= 0) recent.splice(i, 1);
  recent.unshift(ticketId);
  for (const gone of recent.splice(RECENT_CONVERSATIONS))
    qc.removeQueries({ queryKey: conversationKeys.one(gone), exact: true });
}

/**
 * Live changes that came while a conversation's first page was loading. The page may have been read before
 * they were stored, so they are applied to it when it arrives (each change is idempotent: a message already
 * in the page is not counted twice); dropping them would hide a message until the next reconnect.
 */
const whileLoading = new Map<number, ((d: ConversationData) => ConversationData)[]>();

function update(qc: QueryClient, ticketId: number, f: (d: ConversationData) => ConversationData): void {
  const key = conversationKeys.one(ticketId);
  if (qc.getQueryData<ConversationData>(key)) {
    qc.setQueryData<ConversationData>(key, (d) => (d ? f(d) : d));
    return;
  }
  if (qc.getQueryState(key)?.fetchStatus === 'fetching')
    whileLoading.set(ticketId, [...(whileLoading.get(ticketId) ?? []), f]);
}

/** The history call is about to be made: changes from here on are kept for `withChangesWhileLoading`. */
export function startLoading(ticketId: number): void {
  whileLoading.delete(ticketId);
}

/** The first page as loaded, with the live changes that came while it was loading. */
export function withChangesWhileLoading(ticketId: number, d: ConversationData): ConversationData {
  const changes = whileLoading.get(ticketId) ?? [];
  whileLoading.delete(ticketId);
  return changes.reduce((acc, f) => f(acc), d);
}

const failListeners = new Set<(clientId: string, error: string) => void>();
/** MSG-14: the pane shows the failure modal. */
export function onSendFailed(l: (clientId: string, error: string) => void): () => void {
  failListeners.add(l);
  return () => {
    failListeners.delete(l);
  };
}

let installed: { qc: QueryClient; me: string; accountId: number; off: () => void } | null = null;
let sending = false;

/**
 * Deliveries of channel replies that came before the reply itself (the send can settle before my own ack or
 * its `newMessage` is applied): kept by message id, applied when the message arrives. A few at most.
 */
const earlyDeliveries = new Map<number, MessageDeliveryEvent>();
const EARLY_MAX = 100;

/** A channel reply's delivery: on the message when the conversation holds it, else kept for its arrival. */
export function applyDeliveryEvent(qc: QueryClient, e: MessageDeliveryEvent): void {
  const d = qc.getQueryData<ConversationData>(conversationKeys.one(e.ticketId));
  if (d && !holds(d, e.messageId) && !d.newerOut) {
    earlyDeliveries.delete(e.messageId);
    earlyDeliveries.set(e.messageId, e);
    for (const old of earlyDeliveries.keys()) {
      if (earlyDeliveries.size <= EARLY_MAX) break;
      earlyDeliveries.delete(old);
    }
    return;
  }
  update(qc, e.ticketId, (x) => applyDelivery(x, e));
}

/** Adds a stored message to its conversation (my own ack, or a `newMessage`). */
export function addStored(qc: QueryClient, m: Message): void {
  const early = earlyDeliveries.get(m.id);
  earlyDeliveries.delete(m.id);
  update(qc, m.ticketId, (d) => {
    const next = addLive(d, m);
    return early ? applyDelivery(next, early) : next;
  });
}

/** MSG-10: sends the outbox, oldest first, one at a time, while connected. */
export async function flushOutbox(): Promise<void> {
  if (sending || !installed) return;
  sending = true;
  try {
    for (;;) {
      const item = nextToSend(outbox.all());
      if (!item || !realtime.connected || !installed) break;
      try {
        const input = toInput(item);
        // CRYPT-11: an encrypted ticket's text leaves only as an envelope made here.
        if (item.encryption) {
          const sealed = await sealText(installed.accountId, item.encryption, input.message);
          if ('error' in sealed) {
            outbox.fail(item.client_id, sealed.error);
            for (const l of failListeners) l(item.client_id, sealed.error);
            continue;
          }
          input.message = sealed.text;
        }
        const ack = await sendOverSocket(input);
        if (ack.ok) {
          addStored(installed.qc, asMessage(ack.data, installed.me));
          outbox.remove(item.client_id);
        } else {
          outbox.fail(item.client_id, ack.error);
          for (const l of failListeners) l(item.client_id, ack.error);
        }
      } catch (err) {
        if (err instanceof SocketDown) break;
        const error = (err as Error).message || 'Failed';
        outbox.fail(item.client_id, error);
        for (const l of failListeners) l(item.client_id, error);
      }
    }
  } finally {
    sending = false;
  }
}

/** MSG-44, MSG-46: after a reconnect, each cached conversation fetches what it missed. */
export async function checkAll(qc: QueryClient): Promise<void> {
  const cached = qc.getQueriesData<ConversationData>({ queryKey: conversationKeys.all });
  await Promise.all(
    cached.map(async ([, d]) => {
      if (!d) return;
      if (d.newerOut) return qc.invalidateQueries({ queryKey: conversationKeys.one(d.ticketId), exact: true });
      try {
        const r = await conversationApi.check(d.ticketId, lastId(d), d.ts);
        if (!r.complete) return qc.invalidateQueries({ queryKey: conversationKeys.one(d.ticketId), exact: true });
        const me = installed?.me ?? '';
        update(qc, d.ticketId, (x) =>
          applyCheck(
            x,
            r.missing.map((m) => asMessage(m, me)),
            r.deleted,
            r.ts,
          ),
        );
      } catch {
        console.error(MESSAGE_STRINGS.syncError);
      }
    }),
  );
}

/** Wires the live events, the reconnect check and the outbox once per signed-in user. */
export function installLive(qc: QueryClient, me: string, accountId: number, userId: number): void {
  if (installed?.qc === qc && installed.me === me) return;
  installed?.off();
  outbox.open(accountId, userId);
  const offs = [
    realtime.on('newMessage', (data) => addStored(qc, asMessage(data, me))),
    // Merged messages keep their ids and are not sent again: the conversations involved load again.
    realtime.on('ticketsMerged', (e) => {
      for (const id of [e.ticketId, ...e.merged])
        void qc.invalidateQueries({ queryKey: conversationKeys.one(id), exact: true });
    }),
    realtime.on('syncDelete', (e) => {
      update(qc, e.ticketId, (d) => removeMessages(d, [e.messageId]));
    }),
    realtime.on('receiveNote', (e) => {
      update(qc, e.ticketId, (d) => upsertNote(d, e));
    }),
    realtime.on('deleteNote', (e) => {
      update(qc, e.ticketId, (d) => dropNote(d, e.message_id, e.id));
    }),
    realtime.on('addReaction', (e) => {
      update(qc, e.ticketId, (d) => applyReaction(d, e, true));
    }),
    realtime.on('removeReaction', (e) => {
      update(qc, e.ticketId, (d) => applyReaction(d, e, false));
    }),
    realtime.on('addPin', (e) => {
      update(qc, e.ticketId, (d) => applyPin(d, e.messageId, true));
    }),
    realtime.on('removePin', (e) => {
      update(qc, e.ticketId, (d) => applyPin(d, e.messageId, false));
    }),
    realtime.on('textEmotion', (e) => {
      const { emotion_2, recommendation, aiqon_results, scam_results } = e;
      const findings = scam_results ? { recommendation, aiqon_results, scam_results } : {};
      update(qc, e.ticketId, (d) => applyReading(d, e.messageId, { emotion_2, ...findings }));
    }),
    realtime.on('voiceEmotion', (e) => {
      update(qc, e.ticketId, (d) =>
        d.messages.find((m) => m.id === e.messageId)?.message.trim()
          ? d
          : applyReading(d, e.messageId, { emotion_2: e.emotion_2 }),
      );
    }),
    realtime.on('newContext', (e) => {
      update(qc, e.ticketId, (d) => applyReading(d, e.messageId, { context: e.context }));
    }),
    realtime.on('messageEmailState', (e) => {
      update(qc, e.ticketId, (d) => applyEmailState(d, e));
    }),
    realtime.on('messageDelivery', (e) => applyDeliveryEvent(qc, e)),
    realtime.onState((up) => {
      if (!up) return;
      void checkAll(qc);
      void flushOutbox();
    }),
    outbox.subscribe(() => void flushOutbox()),
  ];
  installed = {
    qc,
    me,
    accountId,
    off: () => {
      for (const f of offs) f();
    },
  };
  void flushOutbox();
}
