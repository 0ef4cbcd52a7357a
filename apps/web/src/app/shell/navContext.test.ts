import { type AuthCheckAnswer, visibleNavItems } from '@parley/contracts';
import { describe, expect, it } from 'vitest';
import { navContextOf } from './navContext';

/** An auth check answer as the server gives it, with only what the navigation reads varied. */
const answer = (over: Partial<AuthCheckAnswer>): AuthCheckAnswer => ({
  result: 'success',
  token: '',
  refresh_token: '',
  userId: 7,
  accountId: 3,
  adminName: 'Sam Supervisor',
  adminUsername: 'sam',
  type: 'agent',
  permission: [],
  plan: 1,
  productDetails: { title: 'Parley', variant: 'combined', product_functions: {}, features: [] },
  ...over,
});

describe('navContextOf: the auth check answer read as the navigation visibility context', () => {
  it('NAV-22 NAV-28 an admin on the support host: the variant, admin, plan and features are read', () => {
    const c = navContextOf(
      answer({
        type: 'admin',
        plan: 3,
        productDetails: {
          title: 'Parley Support',
          variant: 'support',
          product_functions: {},
          features: ['scam_calls'],
        },
      }),
    );
    expect(c).toEqual({
      variant: 'support',
      isAdmin: true,
      permissions: [],
      plan: 3,
      features: ['scam_calls'],
      incomingCall: false,
    });
  });

  it('NAV-24 NAV-25 DECISIONS-14 a supervisor is not an admin: its view_report permission is what opens the reports', () => {
    const c = navContextOf(answer({ type: 'supervisor', permission: ['view_report', 'hide_chat'] }));
    expect(c.isAdmin).toBe(false);
    expect(c.permissions).toEqual(['view_report', 'hide_chat']);
    const keys = visibleNavItems(c).map((i) => i.key);
    expect(keys).toContain('report');
    expect(keys).toContain('supervisory');
    expect(keys).not.toContain('kanban'); // admin only
    expect(keys).not.toContain('chats'); // hide_chat applies to a non-admin
    expect(keys).not.toContain('call_config');
  });

  it('DECISIONS-13 an unknown or missing variant is combined; missing fields give an empty context', () => {
    expect(
      navContextOf(answer({ productDetails: { title: 'X', variant: 'martian', product_functions: {}, features: [] } }))
        .variant,
    ).toBe('combined');
    const bare = navContextOf({ result: 'success', token: '', refresh_token: '' });
    expect(bare).toEqual({
      variant: 'combined',
      isAdmin: false,
      permissions: [],
      plan: 0,
      features: [],
      incomingCall: false,
    });
    expect(
      navContextOf(answer({ productDetails: { title: 'T', variant: 'trading', product_functions: {}, features: [] } }))
        .variant,
    ).toBe('trading');
  });

  it('NAV-16 NAV-17 a ringing call swaps Call for Incoming Call', () => {
    const keys = (ringing: boolean) => visibleNavItems(navContextOf(answer({}), ringing)).map((i) => i.key);
    expect(keys(false)).toContain('call');
    expect(keys(false)).not.toContain('incoming_call');
    expect(keys(true)).toContain('incoming_call');
    expect(keys(true)).not.toContain('call');
  });
});
