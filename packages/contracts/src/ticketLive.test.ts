import { describe, expect, it } from 'vitest';
import { arrivalOutcome, insertTrimmed, LIVE_LIST_MAX, NEW_MESSAGE_STACK_MAX, pushNewMessage } from './ticketLive.js';

describe('ticket arrival rules', () => {
  const base = { channel: 'EMAIL', severity: '' as const, closed: 0 };
  const agent = { isAdmin: false, popupOnCall: true, statusFilter: '0' };

  it('TICKET-43 TICKET-44 a new ticket joins Open and All; under any other filter it raises the notice', () => {
    expect(arrivalOutcome(base, agent)).toEqual({ insert: true, notice: false, popup: false });
    expect(arrivalOutcome(base, { ...agent, statusFilter: '4' })).toEqual({ insert: true, notice: true, popup: false });
    for (const f of ['1', '2', '3', '7'])
      expect(arrivalOutcome(base, { ...agent, statusFilter: f })).toEqual({
        insert: false,
        notice: true,
        popup: false,
      });
    // An open-type custom status counts as Open.
    expect(arrivalOutcome({ ...base, closed: 7 }, { ...agent, openCodes: [0, 7] }).insert).toBe(true);
  });

  it('TICKET-45 TICKET-46 TICKET-47 popups: non-admins on CALL when popup_on_call is 1 and on severity H; admins never', () => {
    const call = { ...base, channel: 'CALL' };
    const high = { ...base, severity: 'H' as const };
    expect(arrivalOutcome(call, agent).popup).toBe(true);
    expect(arrivalOutcome(call, { ...agent, popupOnCall: false }).popup).toBe(false);
    expect(arrivalOutcome(high, { ...agent, popupOnCall: false }).popup).toBe(true);
    expect(arrivalOutcome({ ...base, severity: 'M' }, agent).popup).toBe(false);
    for (const t of [call, high, { ...call, severity: 'H' as const }])
      expect(arrivalOutcome(t, { ...agent, isAdmin: true }).popup).toBe(false);
  });

  it('TICKET-39 the list is trimmed to 40 after inserts, new first, no repeats', () => {
    const list = Array.from({ length: 40 }, (_, i) => ({ id: i + 1 }));
    const out = insertTrimmed(list, [{ id: 100 }, { id: 5 }]);
    expect(out).toHaveLength(LIVE_LIST_MAX);
    expect(out.slice(0, 3).map((x) => x.id)).toEqual([100, 5, 1]);
    expect(out.filter((x) => x.id === 5)).toHaveLength(1);
    expect(out.at(-1)!.id).toBe(39);
    expect(insertTrimmed([{ id: 1 }], [{ id: 2 }])).toEqual([{ id: 2 }, { id: 1 }]);
  });

  it('TICKET-42 the new-message stack holds at most 40, most recent first, one entry per ticket', () => {
    let stack: number[] = [];
    for (let i = 1; i <= 50; i++) stack = pushNewMessage(stack, i);
    expect(stack).toHaveLength(NEW_MESSAGE_STACK_MAX);
    expect(stack[0]).toBe(50);
    expect(stack.at(-1)).toBe(11);
    stack = pushNewMessage(stack, 20);
    expect(stack[0]).toBe(20);
    expect(stack.filter((x) => x === 20)).toHaveLength(1);
    expect(stack).toHaveLength(40);
  });
});
