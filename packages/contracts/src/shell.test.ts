import { describe, expect, it } from 'vitest';
import { HOST_VARIANTS } from './constants.js';
import {
  bottomTabsFor,
  chatViewAllowed,
  dialogDateValue,
  formatDate,
  identityValue,
  isNavItemVisible,
  keypressLabel,
  NAV_ITEMS,
  type NavContext,
  type NavKey,
  pageWindow,
  REFUSES_TO_PROVIDE,
  showsIdentityNumber,
  visibleNavItems,
} from './shell.js';
import { effectiveStatus, UpdateStatusInput } from './status.js';

const base: NavContext = { variant: 'combined', isAdmin: false, permissions: [], plan: 1, features: [] };
const keys = (c: Partial<NavContext>) => visibleNavItems({ ...base, ...c }).map((i) => i.key);

describe('navigation visibility', () => {
  it('NAV-03 NAV-15 NAV-21 Home, Knowledgebase and Support always show', () => {
    for (const variant of HOST_VARIANTS) {
      for (const isAdmin of [true, false]) {
        const k = keys({ variant, isAdmin });
        expect(k).toEqual(expect.arrayContaining(['home', 'knowledgebase', 'support']));
      }
    }
  });

  // The table of the second document, row by row, over variant x admin x permission x plan x features.
  type Row = { key: NavKey; expect: (c: NavContext) => boolean };
  const has = (c: NavContext, p: string) => c.permissions.includes(p);
  const rows: Row[] = [
    { key: 'report', expect: (c) => (c.isAdmin || has(c, 'view_report')) && c.variant !== 'trading' },
    { key: 'tickets', expect: (c) => c.variant === 'combined' },
    { key: 'chats', expect: (c) => c.variant !== 'trading' && (c.isAdmin || !has(c, 'hide_chat')) },
    { key: 'analyst_intelligence', expect: (c) => c.isAdmin && c.variant === 'trading' },
    { key: 'prediction_validator', expect: (c) => c.isAdmin && c.variant === 'trading' },
    { key: 'integrated_insight', expect: (c) => c.isAdmin && c.variant === 'trading' },
    { key: 'ai_learning', expect: (c) => c.isAdmin && c.variant === 'trading' },
    {
      key: 'scam_calls',
      expect: (c) => c.isAdmin && c.features.includes('scam_calls') && c.variant !== 'trading',
    },
    { key: 'kanban', expect: (c) => c.isAdmin && !has(c, 'hide_kanban') },
    { key: 'contacts', expect: (c) => c.isAdmin || !has(c, 'hide_contacts') },
    {
      key: 'customer_analysis',
      expect: (c) =>
        (c.features.includes('customer_analysis') || c.plan === 3 || c.plan === 4) && c.variant === 'combined',
    },
    { key: 'case', expect: (c) => c.isAdmin || !has(c, 'hide_case') },
    { key: 'calendar', expect: (c) => c.isAdmin || !has(c, 'hide_calendar') },
    { key: 'call', expect: (c) => (c.isAdmin || !has(c, 'hide_call')) && !c.incomingCall },
    { key: 'incoming_call', expect: (c) => Boolean(c.incomingCall) },
    { key: 'call_report', expect: (c) => c.isAdmin || has(c, 'view_report') },
    { key: 'supervisory', expect: (c) => c.isAdmin || has(c, 'view_report') },
    { key: 'call_config', expect: (c) => c.isAdmin || has(c, 'call_settings') },
  ];
  const permissionSets = [
    [],
    ['view_report'],
    ['hide_chat', 'hide_kanban', 'hide_contacts', 'hide_case', 'hide_calendar', 'hide_call'],
    ['call_settings'],
  ];
  const contexts: NavContext[] = [];
  for (const variant of HOST_VARIANTS)
    for (const isAdmin of [true, false])
      for (const permissions of permissionSets)
        for (const plan of [0, 1, 3, 4, 99])
          for (const features of [[], ['scam_calls', 'customer_analysis']])
            for (const incomingCall of [false, true])
              contexts.push({ variant, isAdmin, permissions, plan, features, incomingCall });

  it.each(
    rows,
  )('NAV-04 NAV-05 NAV-06 NAV-07 NAV-09 NAV-10 NAV-11 NAV-12 NAV-13 NAV-14 NAV-16 NAV-17 NAV-18 NAV-19 NAV-20 NAV-22 NAV-23 NAV-24 NAV-28 HOST-10 PLAN-26 $key over every context', (row) => {
    for (const c of contexts)
      expect(isNavItemVisible(row.key, c), JSON.stringify({ key: row.key, c })).toBe(row.expect(c));
  });

  it('NAV-25 DECISIONS-9 hide_* never hides an item from an admin', () => {
    const all = ['hide_chat', 'hide_contacts', 'hide_case', 'hide_calendar', 'hide_call'];
    expect(keys({ isAdmin: true, permissions: all })).toEqual(
      expect.arrayContaining(['chats', 'contacts', 'case', 'calendar', 'call']),
    );
    expect(keys({ isAdmin: false, permissions: all })).not.toEqual(
      expect.arrayContaining(['chats', 'contacts', 'case', 'calendar', 'call']),
    );
  });

  it('NAV-28 agent with hide_chat on the support host vs admin: menus differ exactly as the table says', () => {
    const admin = keys({ variant: 'support', isAdmin: true });
    const agent = keys({ variant: 'support', isAdmin: false, permissions: ['hide_chat'] });
    expect(admin.filter((k) => !agent.includes(k))).toEqual([
      'report',
      'chats',
      'kanban',
      'call_report',
      'supervisory',
      'call_config',
    ]);
    expect(agent.filter((k) => !admin.includes(k))).toEqual([]);
  });

  it('NAV-14 Calendar carries its first-time hint', () => {
    expect(NAV_ITEMS.find((i) => i.key === 'calendar')?.hint).toBe('View events and holidays');
  });
});

describe('bottom tabs', () => {
  it('SHELL-33 SHELL-34 SHELL-35 HOST-06 DECISIONS-2 Tickets only on combined; Workspace position by host', () => {
    expect(bottomTabsFor('combined')).toEqual(['ticket', 'livechat', 'chat']);
    expect(bottomTabsFor('support')).toEqual(['chat', 'livechat']);
    expect(bottomTabsFor('trading')).toEqual(['livechat', 'chat']);
  });

  it('HOST-07 the chat view only on the product hosts and local hosts; no Workspace tab elsewhere', () => {
    const hosts = ['help.example.test', 'app.example.test'];
    expect(chatViewAllowed('help.example.test', hosts)).toBe(true);
    expect(chatViewAllowed('APP.example.test:8443', hosts)).toBe(true);
    expect(chatViewAllowed('elsewhere.example.test', hosts)).toBe(false);
    expect(chatViewAllowed('help.example.test.evil.test', hosts)).toBe(false);
    for (const local of ['localhost', 'localhost:3000', 'dev.localhost', '127.0.0.1:8080', '127.1.2.3', '[::1]:3000'])
      expect(chatViewAllowed(local, hosts), local).toBe(true);
    expect(chatViewAllowed('128.0.0.1', hosts)).toBe(false);
    // With no host map, every host is the product's.
    expect(chatViewAllowed('elsewhere.example.test', [])).toBe(true);
    expect(bottomTabsFor('combined', false)).toEqual(['ticket', 'livechat']);
    expect(bottomTabsFor('support', false)).toEqual(['livechat']);
  });
});

describe('pagination window', () => {
  it('SHELL-51 SHELL-52 five pages around the current one, first and last, gaps marked', () => {
    expect(pageWindow(1, 1)).toEqual([1]);
    expect(pageWindow(1, 3)).toEqual([1, 2, 3]);
    expect(pageWindow(1, 10)).toEqual([1, 2, 3, 4, 5, 'gap', 10]);
    expect(pageWindow(5, 10)).toEqual([1, 'gap', 3, 4, 5, 6, 7, 'gap', 10]);
    expect(pageWindow(10, 10)).toEqual([1, 'gap', 6, 7, 8, 9, 10]);
    expect(pageWindow(4, 10)).toEqual([1, 2, 3, 4, 5, 6, 'gap', 10]);
    expect(pageWindow(3, 6)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(pageWindow(99, 7)).toEqual([1, 'gap', 3, 4, 5, 6, 7]);
    expect(pageWindow(1, 0)).toEqual([]);
  });
});

describe('generic input dialog rules', () => {
  it('SHELL-44 SHELL-45 SHELL-46 identity number shows only for a real ID type not refused', () => {
    expect(showsIdentityNumber('None', false)).toBe(false);
    expect(showsIdentityNumber('MyKad ID', true)).toBe(false);
    expect(showsIdentityNumber('Passport No.', false)).toBe(true);
    expect(identityValue('None', false, '123')).toBe(REFUSES_TO_PROVIDE);
    expect(identityValue('MyKad ID', true, '123')).toBe('Refuses to provide');
    expect(identityValue('Army ID', false, ' A123 ')).toBe('A123');
  });

  it('SHELL-47 a date becomes "YYYY-MM-DD 00:00:00"; an invalid one is empty', () => {
    expect(dialogDateValue('2026-11-23')).toBe('2026-11-23 00:00:00');
    expect(dialogDateValue(new Date(2026, 0, 5, 15, 30))).toBe('2026-01-05 00:00:00');
    expect(dialogDateValue('2026-02-30')).toBe('');
    expect(dialogDateValue('yesterday')).toBe('');
    expect(dialogDateValue(new Date('nope'))).toBe('');
    expect(dialogDateValue('')).toBe('');
    expect(dialogDateValue(null)).toBe('');
  });
});

describe("the caller's keypress", () => {
  it('CALL-23 CALL-24 CALL-25 CALL-26 CALL-27 CALL-28 a language, a language and a product, or Unknown Keypress and the code', () => {
    expect(['1', '2', '3'].map(keypressLabel)).toEqual(['English', 'Malay', 'Chinese']);
    expect(keypressLabel('11')).toBe('English · TV');
    expect(keypressLabel('12')).toBe('English · Aircon');
    expect(keypressLabel('23')).toBe('Malay · Refrigerator');
    expect(keypressLabel('34')).toBe('Chinese · Washing Machine');
    expect(keypressLabel('25')).toBe('Malay · Commercial Display');
    expect(keypressLabel('36')).toBe('Chinese · Other Enquiries');
    for (const bad of ['0', '4', '10', '17', '41', '123', 'x'])
      expect(keypressLabel(bad)).toBe(`Unknown Keypress ${bad}`);
  });
});

describe('date formatting', () => {
  it('CONST-02 dates are written YYYY-MM-DD; an invalid date gives an empty value', () => {
    expect(formatDate('2026-11-23')).toBe('2026-11-23');
    expect(formatDate('2026-11-23 14:05:00')).toBe('2026-11-23');
    expect(formatDate(new Date(2026, 0, 5, 23, 59))).toBe('2026-01-05');
    expect(formatDate(new Date(2026, 8, 9).getTime())).toBe('2026-09-09');
    expect(formatDate('2026-02-30')).toBe('');
    expect(formatDate('2025-02-29')).toBe('');
    expect(formatDate('2024-02-29')).toBe('2024-02-29');
    expect(formatDate('23/11/2026')).toBe('');
    expect(formatDate(new Date('nope'))).toBe('');
    expect(formatDate(Number.NaN)).toBe('');
    expect(formatDate('')).toBe('');
    expect(formatDate(undefined)).toBe('');
  });
});

describe('status rules', () => {
  it('STATUS-03 second_status overrides status; no connection is Offline', () => {
    expect(effectiveStatus({ status: 'ONLINE', second_status: '' })).toBe('ONLINE');
    expect(effectiveStatus({ status: 'ONLINE', second_status: 'MEAL_BREAK' })).toBe('MEAL_BREAK');
    expect(effectiveStatus({ status: 'OFFLINE', second_status: 'BUSY' })).toBe('OFFLINE');
  });

  it('STATUS-09 Away and Busy need a reason; others do not', () => {
    expect(UpdateStatusInput.safeParse({ status: 'AWAY', reason: '' }).success).toBe(false);
    expect(UpdateStatusInput.safeParse({ status: 'BUSY' }).success).toBe(false);
    expect(UpdateStatusInput.safeParse({ status: 'BUSY', reason: 'call' }).success).toBe(true);
    expect(UpdateStatusInput.safeParse({ status: 'PRAYER' }).success).toBe(true);
    expect(UpdateStatusInput.safeParse({ status: '' }).success).toBe(false);
  });
});
