/**
 * The light visitor page inside the widget's frame, `/w/livechat/:token`. The same flow, strings
 * and calls as the React visitor pages (`features/visitor`, whose routes stay the spec's), in plain DOM
 * code so the frame loads a few kB instead of the whole web app. One page holds every view: the start
 * form, the offline form, the queue, the chat, the rating and the ended view.
 */
import type { LiveChatInfoAnswer } from '@parley/contracts';
import { VISITOR_STRINGS as S } from '@parley/contracts/visitor';
import { api } from '../../lib/http';
import {
  autoSubmits,
  initialVisitorState,
  ratingProblem,
  registerBody as registerBodyOf,
  VISITOR_FIELDS,
  type VisitorEvent,
  type VisitorState,
  type VisitorValues,
  valuesFromLink,
  visitorReducer,
} from '../../lib/visitorFlow';
import { chime, openVisitorSocket, storedCsrf, type VisitorSocket } from '../../lib/visitorSocket';
import { showChat } from './chat';
import { disconnected, field, h } from './dom';
import './widget.css';

const root = document.getElementById('app') as HTMLElement;
const token = decodeURIComponent(location.pathname.split('/').filter(Boolean)[2] ?? '');
const params = new URLSearchParams(location.search);
const FIELDS = VISITOR_FIELDS;
type Values = VisitorValues;

const values: Values = valuesFromLink(params);
const ic = params.get('ic') ?? undefined;
const offlineForced = params.get('api') === 'false';
let autoSubmitted = false;
let socket: VisitorSocket | null = null;
/** Where the visitor is in the flow (`visitorFlow`, shared with the React pages); each view is drawn from it. */
let state: VisitorState = initialVisitorState;
const step = (e: VisitorEvent) => {
  state = visitorReducer(state, e);
  return state;
};

/** Replaces the page with one card (inside the widget the panel is the card already: no second border). */
export function show(...children: (Node | string | null | false)[]): HTMLElement {
  const card = h('div', { class: window.parent === window ? 'card bordered' : 'card' }, ...children);
  root.replaceChildren(h('div', { class: 'center' }, card));
  return card;
}
const title = (text: string) => h('h1', {}, text);
const text = (t: string, cls = '') => h('p', { class: cls }, t);
const button = (label: string, onclick: () => void) => h('button', { type: 'button', class: 'btn', onclick }, label);
const heading = (info: LiveChatInfoAnswer) => (info.name ? h('div', { class: 'company' }, info.name) : null);

/** The info call decides the view (VISITOR-13); the chat and the rating come back here when they end. */
export async function boot(): Promise<void> {
  show(text(S.pleaseWait));
  let r: LiveChatInfoAnswer;
  try {
    r = await api<LiveChatInfoAnswer>('POST', '/api/livechat/info', { token, csrf: storedCsrf.get(token) });
  } catch {
    step({ type: 'infoFailed' });
    return void show(title(S.invalidLink), text(S.invalidLinkBody));
  }
  storedCsrf.set(token, r.csrf);
  const next = step({ type: 'info', answer: r, offlineForced });
  if (r.result === 'closed') storedCsrf.clear(token);
  if (next.view === 'chat') return showChat(token, r, boot);
  if (next.view === 'queue') return join(r);
  if (next.view === 'offline') return showForm(r, true);
  if (next.view === 'start') return showStart(r);
  showRating(r);
}

function showStart(info: LiveChatInfoAnswer) {
  if (autoSubmit(info, false)) return;
  show(
    heading(info),
    title(S.welcome),
    text(S.welcomeBody),
    button(S.continue, () => {
      step({ type: 'continue' });
      showForm(info, false);
    }),
  );
}

/** VISITOR-26: all of name, phone, email and reason given: submit at once. */
function autoSubmit(info: LiveChatInfoAnswer, offline: boolean): boolean {
  if (autoSubmitted || !autoSubmits(offline ? 'offline' : 'start', values, params)) return false;
  autoSubmitted = true;
  if (offline) void sendOffline(info);
  else join(info);
  return true;
}

/** The start form (VISITOR-28..30), or the offline variant (VISITOR-19). */
function showForm(info: LiveChatInfoAnswer, offline: boolean) {
  if (offline && autoSubmit(info, true)) return;
  const labels: Values = { name: S.name, phone: S.phone, email: S.email, message: S.message };
  // Offline: the message, plus whichever of name, phone and email no query parameter gave.
  const shown = FIELDS.filter((f) => !offline || f === 'message' || !params.has(f));
  const fields = shown.map((f) => {
    const x = field(labels[f], values[f], f === 'message');
    x.input.addEventListener('input', () => {
      values[f] = x.input.value;
    });
    return { f, ...x };
  });
  const submit = () => {
    let ok = true;
    for (const x of fields) {
      const empty = values[x.f].trim() === '';
      x.setError(empty ? S.empty : undefined);
      if (empty) ok = false;
    }
    if (FIELDS.some((f) => values[f].trim() === '')) ok = false;
    if (!ok) return;
    if (offline) void sendOffline(info);
    else join(info);
  };
  show(
    heading(info),
    offline && text(S.offline),
    h('div', { class: 'form' }, ...fields.map((x) => x.el)),
    button(offline ? S.submit : S.connect, submit),
  );
}

const registerBody = (csrf: string) => registerBodyOf(csrf, token, values, ic);

async function sendOffline(info: LiveChatInfoAnswer) {
  try {
    await api('POST', '/api/livechat/register?api=false', registerBody(info.csrf));
    step({ type: 'offlineSent' });
    show(text(S.offlineSent));
  } catch (err) {
    console.warn('register', err);
  }
}

/** The queue (VISITOR-21..24): the number as it falls, then the accepted line, the chime and the chat. */
function join(info: LiveChatInfoAnswer) {
  const line = h('p', { class: 'big', 'data-testid': 'visitor-queue' }, S.waiting);
  const alert = h('div');
  show(heading(info), alert, line);
  const setDown = (down: boolean) => alert.replaceChildren(...(down ? [disconnected()] : []));
  step({ type: 'join' });
  const s = socket ?? openVisitorSocket(token, info.csrf);
  socket = s;
  s.off();
  const accepted = async () => {
    if (state.view === 'queue' && state.accepted) return;
    step({ type: 'accepted' });
    chime();
    line.textContent = S.accepted;
    try {
      await api('POST', '/api/livechat/register', registerBody(info.csrf));
    } catch (err) {
      console.warn('register', err); // VISITOR-34: logged only
    }
    setTimeout(() => {
      s.close();
      socket = null;
      void boot();
    }, 2000);
  };
  s.on('connect', () => {
    setDown(false);
    s.emit('registerQueue', { token, csrf: info.csrf, ...values, ic, page: document.referrer.slice(0, 1000) }, (r) => {
      if (!r.ok) return console.warn('registerQueue', r.error);
      const q = step({ type: 'queueNumber', place: r.queue || null });
      if (q.view === 'queue' && !q.accepted) line.textContent = q.place ? S.queueNumber(q.place) : S.waiting;
      if (r.ticket_id) void accepted();
    });
  });
  s.on('disconnect', () => setDown(true));
  s.on('connect_error', () => setDown(true));
  s.on('queueNumber', (n) => {
    const q = step({ type: 'queueNumber', place: n });
    if (q.view === 'queue' && !q.accepted) line.textContent = q.place ? S.queueNumber(q.place) : S.waiting;
  });
  s.on('queueAccepted', () => void accepted());
}

/** VISITOR-16/17, VISITOR-36..41: "converted" / "rating" show the stars; "closed" does not. */
function showRating(info: LiveChatInfoAnswer) {
  const converted = info.result === 'converted';
  const head = [title(converted ? S.convertedTitle : S.endedTitle), text(converted ? S.convertedBody : S.endedBody)];
  if (info.result === 'closed') return void show(...head);
  let rating = 0;
  const stars = h('div', { class: 'stars', role: 'radiogroup', 'aria-label': S.rateTitle });
  const labels: HTMLLabelElement[] = [];
  for (let n = 1; n <= 5; n++) {
    const id = `star-${n}`;
    const input = h('input', { type: 'radio', name: 'rating', id, value: n, class: 'sr-only' });
    input.addEventListener('change', () => {
      rating = n;
      labels.forEach((l, i) => {
        l.classList.toggle('on', i < n);
      });
    });
    const label = h('label', { for: id }, h('span', { class: 'sr-only' }, String(n)), '\u2605');
    labels.push(label);
    stars.append(input, label);
  }
  const reason = field(S.reason, '', true);
  const error = h('p', { class: 'error-line', role: 'alert' });
  const send = async () => {
    error.textContent = ratingProblem(rating, reason.input.value, S) ?? '';
    if (error.textContent) return;
    try {
      await api('POST', '/api/livechat/rate', { _token: info.csrf, token, rating, reason: reason.input.value });
      storedCsrf.clear(token);
      step({ type: 'rated' });
      showEnd();
    } catch (err) {
      error.textContent = (err as Error).message;
    }
  };
  show(
    ...head,
    info.transcript ? transcriptButton(info.csrf) : null,
    h('p', { class: 'strong' }, S.rateTitle),
    stars,
    reason.el,
    error,
    button(S.submit, send),
  );
}

/** PLAN-21 (design): the chat's transcript to the address of the visitor's form, once. */
function transcriptButton(csrf: string) {
  const line = h('p', { class: 'hint' }, S.transcriptHint);
  const box = h('div', { class: 'transcript' });
  const b = button(S.sendTranscript, async () => {
    b.setAttribute('disabled', '');
    try {
      const r = await api<{ to: string }>('POST', '/api/livechat/transcript/visitor', { token, _token: csrf });
      box.replaceChildren(h('p', { role: 'status' }, S.transcriptSent(r.to)));
    } catch (err) {
      b.removeAttribute('disabled');
      line.textContent = (err as Error).message;
      line.setAttribute('role', 'alert');
    }
  });
  box.append(b, line);
  return box;
}

/** VISITOR-08/09: the ended view; Close asks the widget to close its panel, or closes the tab. */
function showEnd() {
  show(
    title(S.endedTitle),
    text(S.endedBody),
    button(S.close, () => {
      if (window.parent !== window) window.parent.postMessage({ parley: 'close' }, '*');
      else window.close();
    }),
  );
}

void boot();
