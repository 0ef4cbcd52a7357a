import type {
  ChannelWindowAnswer,
  CheckAnswer,
  HistoryAnswer,
  Message,
  Note,
  PrivateReplyInput,
  RetryDeliveryAnswer,
  RetryEmailAnswer,
  SendAck,
  SendMessageInput,
  SendTemplateInput,
  TranslateAnswer,
  UploadAnswer,
} from '@parley/contracts';
import { api, HttpError } from '../../lib/http';
import { currentSocket } from '../../lib/realtime';

/** The calls of a conversation (MSG-19, MSG-25, MSG-32, MSG-35, MSG-38, MSG-44, MSG-49, MSG-51). */
export const conversationApi = {
  /** MSG-38: the newest 30, or the 30 before `before`. */
  history: (ticketId: number, before?: number) =>
    api<HistoryAnswer>('GET', `/ticket/data/${ticketId}/0${before ? `?messageId=${before}` : ''}`),
  check: (ticketId: number, lastMessageId: number, ts: number) =>
    api<CheckAnswer>('POST', `/api/ticket/data/check/${ticketId}/${lastMessageId}`, { ts }),
  send: (input: SendMessageInput) => api<{ result: 'success'; data: Message }>('POST', '/api/ticket/message', input),
  remove: (ticketId: number, messageId: number) =>
    api('POST', '/api/ticket/message/delete', { ticket_id: ticketId, message_id: messageId }),
  addNote: (messageId: number, text: string) =>
    api<{ data: Note }>('POST', '/api/ticket/note/add', { message_id: messageId, text }),
  editNote: (id: number, text: string) => api<{ data: Note }>('POST', '/api/ticket/note/edit', { id, text }),
  deleteNote: (id: number) => api('POST', '/api/ticket/note/delete', { id }),
  react: (messageId: number, reaction: string, emojiText: string, remove: boolean) =>
    api('POST', '/api/ticket/reaction', { message_id: messageId, reaction, emoji_text: emojiText, remove }),
  pin: (messageId: number, pinned: boolean) => api('POST', '/api/ticket/pin', { message_id: messageId, pinned }),
  translate: (ticketId: number, text: { id: number; message: string }[], target: string, source?: string) =>
    api<TranslateAnswer>('POST', '/api/translate', { ticketId, text, target, ...(source ? { source } : {}) }),
  /** Sends a failed mailbox reply again (its state comes back by `messageEmailState`). */
  retryEmail: (messageId: number) =>
    api<RetryEmailAnswer>('POST', '/api/ticket/message/reply/retry', { id: messageId }),
  /** Sends a failed channel reply again (its delivery comes back by `messageDelivery`). */
  retryDelivery: (messageId: number) =>
    api<RetryDeliveryAnswer>('POST', '/api/channels/message/retry', { id: messageId }),
  /** Whether WhatsApp's 24-hour window of the ticket is open, and when it closes. */
  channelWindow: (ticketId: number) =>
    api<ChannelWindowAnswer>('GET', `/api/channels/window/${ticketId}`).then((r) => r.data),
  /** An approved WhatsApp template to the customer, once the window is closed. */
  sendTemplate: (input: SendTemplateInput) => api<{ result: 'success' }>('POST', '/api/channels/template', input),
  privateReply: (input: PrivateReplyInput) => api<{ result: 'success' }>('POST', '/api/channels/private-reply', input),
};

/** A multipart POST's answer as it came: the status, the raw text and the parsed JSON (when it is JSON). */
export interface FormAnswer {
  status: number;
  text: string;
  body: unknown;
}

/**
 * A multipart POST reporting upload progress as a percent (MSG-36; fetch cannot report upload progress,
 * XMLHttpRequest can). Resolves with any HTTP answer; rejects only when no answer came (status 0).
 */
export function postForm(url: string, form: FormData, onPercent: (p: number) => void): Promise<FormAnswer> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.withCredentials = true;
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onPercent(Math.min(100, Math.round((e.loaded / e.total) * 100)));
    };
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {}
      if (xhr.status >= 200 && xhr.status < 300) onPercent(100);
      resolve({ status: xhr.status, text: xhr.responseText, body });
    };
    xhr.onerror = () => reject(new HttpError(0, 'Failed', null));
    xhr.send(form);
  });
}

/** MSG-35, MSG-36: `POST /api/upload` with `attachment[]`, reporting progress as a percent. */
export async function upload(ticketId: number, files: File[], onPercent: (p: number) => void): Promise<UploadAnswer> {
  const form = new FormData();
  form.append('ticket_id', String(ticketId));
  for (const f of files) form.append('attachment[]', f, f.name);
  const r = await postForm('/api/upload', form, onPercent);
  if (r.status >= 200 && r.status < 300) return r.body as UploadAnswer;
  const d = (r.body as { description?: string } | null)?.description;
  throw new HttpError(r.status, d || r.text || 'Failed', r.body);
}

/**
 * MSG-25: `POST /api/ticket/message/reply` as multipart (files as `attachment[]`), with progress. The
 * answer is given as it came, so a failure can be shown with its raw response (MSG-31).
 */
export function sendReply(fields: Record<string, string>, files: File[], onPercent: (p: number) => void) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const f of files) form.append('attachment[]', f, f.name);
  return postForm('/api/ticket/message/reply', form, onPercent);
}

export function emit(name: string, ...args: unknown[]): void {
  const s = currentSocket();
  if (s?.connected) s.emit(name, ...args);
}

/** RT-06: join a ticket's room; the answer says whether it worked. */
export function joinRoom(ticketId: number): Promise<boolean> {
  const s = currentSocket();
  if (!s?.connected) return Promise.resolve(false);
  return s
    .timeout(10_000)
    .emitWithAck('joinRoom', ticketId)
    .then((r: { ok: boolean }) => r.ok)
    .catch(() => false);
}

/** Thrown when the socket went away before the server answered: the item stays queued, nothing failed. */
export class SocketDown extends Error {}

/**
 * RT-10: `newChatMessage` with its ack. Rejects with SocketDown when not connected or when the connection
 * drops before the answer; the outbox sends the same `queue-` id again after the reconnect.
 */
export function sendOverSocket(input: SendMessageInput, timeoutMs = 15_000): Promise<SendAck> {
  const s = currentSocket();
  if (!s?.connected) return Promise.reject(new SocketDown());
  return new Promise((resolve, reject) => {
    const onDown = () => {
      clearTimeout(timer);
      reject(new SocketDown());
    };
    const timer = setTimeout(() => {
      s.off('disconnect', onDown);
      reject(new Error('No answer from the server.'));
    }, timeoutMs);
    s.once('disconnect', onDown);
    s.emit('newChatMessage', input, (ack: SendAck) => {
      clearTimeout(timer);
      s.off('disconnect', onDown);
      resolve(ack);
    });
  });
}
