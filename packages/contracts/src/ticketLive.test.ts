import { describe, expect, it } from 'vitest';
import { arrivalOutcome, insertTrimmed, LIVE_LIST_MAX, NEW_MESSAGE_STACK_MAX, pushNewMessage } from './ticketLive.js';
import { TicketLoadQuery } from './tickets.js';

describe('ticket arrival rules', () => {
  const base = {
    ticket_number: 7,
    title: 'Boiler leaks',
    channel: 'EMAIL',
    closed: 0,
    severity: '' as const,
    case_type: '',
    label: [3],
    assignee: '',
    department_id: 2,
    campaign_id: null,
    created_at: Date.UTC(2026, 0, 1),
    updated_at: Date.UTC(2026, 0, 1),
    hasResponded: false,
    name: 'Sam',
    email: 'sam@example.net',
    phone: '',
    other: {},
    encryption: false,
  };
  const agent = { isAdmin: false, popupOnCall: true, statusFilter: '0' };
  const none = { insert: true, notice: false, popup: false, reload: false };

  it('TICKET-43 TICKET-44 a new ticket joins Open and All; under any other filter it raises the notice', () => {
    expect(arrivalOutcome(base, agent)).toEqual(none);
    expect(arrivalOutcome(base, { ...agent, statusFilter: '4' })).toEqual({ ...none, notice: true });
    for (const f of ['1', '2', '3', '7'])
      expect(arrivalOutcome(base, { ...agent, statusFilter: f })).toEqual({ ...none, insert: false, notice: true });
    // An open-type custom status counts as Open.
    expect(arrivalOutcome({ ...base, closed: 7 }, { ...agent, openCodes: [0, 7] }).insert).toBe(true);
  });

  it('TICKET-39 TICKET-43 a ticket that misses any filter of the list is not inserted; the list is not touched', () => {
    const q = (raw: Record<string, string | undefined>) => TicketLoadQuery.parse(raw);
    const misses = [
      { labelFilter: '4' },
      { channelFilter: 'WHATSAPP' },
      { depFilter: '9' },
      { priorityFilter: 'H' },
      { campaignId: '1' },
      { agent: 'bob' },
      { field: 'title', fieldValue: 'invoice' },
      { field: 'email', fieldValue: 'alex@' },
      { appt: '1' },
      { withReply: '1' },
      { start: String(Date.UTC(2026, 1, 1) / 1000) },
      { advFilter: JSON.stringify([{ field: 'name', op: 'is', value: 'kim' }]) },
    ];
    for (const raw of misses)
      expect(arrivalOutcome(base, { ...agent, query: q(raw) }), JSON.stringify(raw)).toEqual({
        ...none,
        insert: false,
      });
    const hits = [
      { labelFilter: '3,4' },
      { channelFilter: 'EMAIL' },
      { depFilter: '2' },
      { priorityFilter: 'none' },
      { field: 'name', fieldValue: 'SA' },
      { appt: '0' },
      { withReply: '0' },
    ];
    for (const raw of hits)
      expect(arrivalOutcome(base, { ...agent, query: q(raw) }), JSON.stringify(raw)).toEqual(none);
    // Filters only the server can decide: the list is loaded again rather than guessed.
    expect(arrivalOutcome(base, { ...agent, query: q({ replyTAT: '30' }) })).toEqual({
      ...none,
      insert: false,
      reload: true,
    });
    expect(arrivalOutcome(base, { ...agent, query: q({ automatic: '1', labelFilter: '4' }) }).reload).toBe(false);
  });

  it('TICKET-45 TICKET-46 TICKET-47 CALL-42 CRYPT-10 popups: non-admins on CALL when popup_on_call is 1 and on severity H; admins never; never an encrypted ticket', () => {
    const call = { ...base, channel: 'CALL' };
    const high = { ...base, severity: 'H' as const };
    expect(arrivalOutcome(call, agent).popup).toBe(true);
    expect(arrivalOutcome(call, { ...agent, popupOnCall: false }).popup).toBe(false);
    expect(arrivalOutcome(high, { ...agent, popupOnCall: false }).popup).toBe(true);
    expect(arrivalOutcome({ ...base, severity: 'M' }, agent).popup).toBe(false);
    for (const t of [call, high, { ...call, severity: 'H' as const }])
      expect(arrivalOutcome(t, { ...agent, isAdmin: true }).popup).toBe(false);
    for (const t of [call, high]) expect(arrivalOutcome({ ...t, encryption: true }, agent).popup).toBe(false);
    // The popup does not depend on the list: a filtered-out ticket still pops up.
    expect(arrivalOutcome(high, { ...agent, statusFilter: '1' })).toEqual({
      insert: false,
      notice: true,
      popup: true,
      reload: false,
    });
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
