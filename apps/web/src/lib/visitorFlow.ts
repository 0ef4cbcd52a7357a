import type { LiveChatInfoAnswer } from '@parley/contracts';

/**
 * The visitor's way through a live chat link, as one pure state machine: the React pages
 * (`VisitorPage`) and the widget's light page (`features/widget`) draw its states and run its effects
 * (calls, sockets, navigation) each in their own way, but move from state to state only through here.
 */
export type VisitorState =
  | { view: 'loading' }
  | { view: 'invalid' }
  /** A chat is running: the chat view takes over. */
  | { view: 'chat' }
  | { view: 'start' }
  | { view: 'form' }
  /** The offline form (VISITOR-19); after sending it, `offlineSent`. */
  | { view: 'offline' }
  | { view: 'offlineSent' }
  /** VISITOR-21..24: the place in the queue as it falls (null: not known yet), then accepted. */
  | { view: 'queue'; place: number | null; accepted: boolean }
  /** VISITOR-16, VISITOR-17: the chat ended ("converted" to a ticket, or "rating"), or it is "closed". */
  | { view: 'converted' | 'rating' | 'closed' }
  /** VISITOR-08, VISITOR-09: rated; the ended view. */
  | { view: 'ended' };

export type VisitorView = VisitorState['view'];

export type VisitorEvent =
  /** VISITOR-13: the info call's answer decides the view; `api=false` in the link forces the offline form. */
  | { type: 'info'; answer: LiveChatInfoAnswer; offlineForced: boolean }
  | { type: 'infoFailed' }
  /** Continue on the welcome view. */
  | { type: 'continue' }
  /** The start form was sent (or the link was already queued): wait in the queue. */
  | { type: 'join' }
  | { type: 'queueNumber'; place: number | null }
  | { type: 'accepted' }
  | { type: 'offlineSent' }
  | { type: 'rated' };

export const initialVisitorState: VisitorState = { view: 'loading' };

export function visitorReducer(state: VisitorState, event: VisitorEvent): VisitorState {
  switch (event.type) {
    case 'info': {
      const r = event.answer;
      if (r.result === 'success' && r.ticket_id) return { view: 'chat' };
      if (r.result === 'success' && r.queued) return { view: 'queue', place: null, accepted: false };
      if (r.result === 'success') return { view: event.offlineForced ? 'offline' : 'start' };
      if (r.result === 'noAgent') return { view: 'offline' };
      return { view: r.result };
    }
    case 'infoFailed':
      return { view: 'invalid' };
    case 'continue':
      return state.view === 'start' ? { view: 'form' } : state;
    case 'join':
      return state.view === 'queue' ? state : { view: 'queue', place: null, accepted: false };
    case 'queueNumber':
      // Once accepted, the accepted line stays.
      return state.view === 'queue' && !state.accepted ? { ...state, place: event.place || null } : state;
    case 'accepted':
      return { view: 'queue', place: null, accepted: true };
    case 'offlineSent':
      return state.view === 'offline' || state.view === 'form' ? { view: 'offlineSent' } : state;
    case 'rated':
      return { view: 'ended' };
  }
}

/** The start form's fields, in the order they are shown. */
export const VISITOR_FIELDS = ['name', 'phone', 'email', 'message'] as const;
export type VisitorField = (typeof VISITOR_FIELDS)[number];
export type VisitorValues = Record<VisitorField, string>;

/** The form's values from the link (`reason` is the message). */
export function valuesFromLink(params: URLSearchParams): VisitorValues {
  return {
    name: params.get('name') ?? '',
    phone: params.get('phone') ?? '',
    email: params.get('email') ?? '',
    message: params.get('reason') ?? '',
  };
}

/** VISITOR-26: on the start or offline view, a link giving all of name, phone, email and reason is sent at once. */
export function autoSubmits(view: VisitorView, values: VisitorValues, params: URLSearchParams): boolean {
  return (
    (view === 'start' || view === 'offline') &&
    params.has('reason') &&
    VISITOR_FIELDS.every((f) => values[f].trim() !== '')
  );
}

/** `POST /api/livechat/register` (VISITOR-32): the name is the title, the message `des` (VISITOR-33). */
export function registerBody(csrf: string, token: string, values: VisitorValues, ic: string | undefined) {
  return {
    _token: csrf,
    token,
    title: values.name,
    name: values.name,
    email: values.email,
    phone: values.phone,
    des: values.message,
    ic,
  };
}

/** VISITOR-37..39: what stops a rating from being sent (null: it may go). */
export function ratingProblem(
  rating: number,
  reason: string,
  strings: { ratingRequired: string; reasonRequired: string },
) {
  if (rating === 0) return strings.ratingRequired;
  if (rating < 5 && reason.trim() === '') return strings.reasonRequired;
  return null;
}
