import type { LiveChatInfoAnswer } from '@parley/contracts';
import { describe, expect, it } from 'vitest';
import {
  autoSubmits,
  initialVisitorState,
  ratingProblem,
  visitorReducer as step,
  type VisitorState,
  valuesFromLink,
} from './visitorFlow';

const answer = (o: Partial<LiveChatInfoAnswer>): LiveChatInfoAnswer =>
  ({ result: 'success', ticket_id: null, csrf: 'c', name: 'Acme', queued: false, ...o }) as LiveChatInfoAnswer;
const info = (o: Partial<LiveChatInfoAnswer>, offlineForced = false) =>
  step(initialVisitorState, { type: 'info', answer: answer(o), offlineForced });

describe('the visitor flow', () => {
  it('VISITOR-13 VISITOR-14 VISITOR-15 VISITOR-18 the info answer decides the first view', () => {
    expect(info({}).view).toBe('start');
    expect(info({}, true).view).toBe('offline');
    expect(info({ ticket_id: 7 }).view).toBe('chat');
    expect(info({ queued: true })).toEqual({ view: 'queue', place: null, accepted: false });
    expect(info({ result: 'noAgent' }).view).toBe('offline');
    expect(info({ result: 'converted' }).view).toBe('converted');
    expect(info({ result: 'rating' }).view).toBe('rating');
    expect(info({ result: 'closed' }).view).toBe('closed');
    expect(step(initialVisitorState, { type: 'infoFailed' }).view).toBe('invalid');
  });

  it('VISITOR-20 VISITOR-22 VISITOR-23 Continue, Connect, the falling queue number, then accepted for good', () => {
    let s: VisitorState = step(info({}), { type: 'continue' });
    expect(s.view).toBe('form');
    s = step(s, { type: 'join' });
    expect(s).toEqual({ view: 'queue', place: null, accepted: false });
    s = step(s, { type: 'queueNumber', place: 3 });
    s = step(s, { type: 'queueNumber', place: 2 });
    expect(s).toEqual({ view: 'queue', place: 2, accepted: false });
    s = step(s, { type: 'accepted' });
    s = step(s, { type: 'queueNumber', place: 1 });
    expect(s).toEqual({ view: 'queue', place: null, accepted: true });
    expect(step(s, { type: 'join' })).toBe(s);
  });

  it('VISITOR-19 the offline form is sent once; Continue means nothing outside the welcome view', () => {
    const offline = info({ result: 'noAgent' });
    expect(step(offline, { type: 'offlineSent' }).view).toBe('offlineSent');
    expect(step(offline, { type: 'continue' })).toBe(offline);
    expect(step(initialVisitorState, { type: 'offlineSent' })).toBe(initialVisitorState);
  });

  it('VISITOR-08 a rating sent ends the flow', () => {
    expect(step(info({ result: 'rating' }), { type: 'rated' }).view).toBe('ended');
  });

  it('VISITOR-26 a link with every field and a reason is sent at once from the start or offline view only', () => {
    const full = new URLSearchParams('name=Ann&phone=1&email=a@b.c&reason=Help');
    expect(valuesFromLink(full)).toEqual({ name: 'Ann', phone: '1', email: 'a@b.c', message: 'Help' });
    expect(autoSubmits('start', valuesFromLink(full), full)).toBe(true);
    expect(autoSubmits('offline', valuesFromLink(full), full)).toBe(true);
    expect(autoSubmits('form', valuesFromLink(full), full)).toBe(false);
    const noReason = new URLSearchParams('name=Ann&phone=1&email=a@b.c');
    expect(autoSubmits('start', { ...valuesFromLink(noReason), message: 'typed' }, noReason)).toBe(false);
    const blank = new URLSearchParams('name=Ann&phone=&email=a@b.c&reason=Help');
    expect(autoSubmits('start', valuesFromLink(blank), blank)).toBe(false);
  });

  it('VISITOR-37 VISITOR-38 VISITOR-39 a rating needs stars, and a reason below 5', () => {
    const S = { ratingRequired: 'Please fill in.', reasonRequired: 'Please tell us what should we improve!' };
    expect(ratingProblem(0, 'x', S)).toBe(S.ratingRequired);
    expect(ratingProblem(4, '  ', S)).toBe(S.reasonRequired);
    expect(ratingProblem(4, 'slow', S)).toBe(null);
    expect(ratingProblem(5, '', S)).toBe(null);
  });
});
