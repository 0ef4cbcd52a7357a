import { describe, expect, it } from 'vitest';
import { DEFAULT_FILTERS, dateRange } from '../../lib/api/tickets';
import { fromPreset, presetKey, savePreset, toPreset } from './presets';

describe('ticket filter presets', () => {
  const f = {
    ...DEFAULT_FILTERS,
    status: '1',
    labels: ['3'],
    channels: ['EMAIL'],
    priorities: ['H'],
    sort: 'priority',
    campaign: '4',
    agent: 'ann',
    created: '1week' as const,
    appointment: 'current' as const,
    apptLessTwoDays: true,
    adv: [{ field: 'email', op: 'starts_with', value: 'ann@' }],
  };

  it('TICKET-07 TICKET-08 TICKET-09 a preset keeps the spec fields and gives the same filters back', () => {
    const p = toPreset(' Urgent email ', f, 12);
    expect(p.name).toBe('Urgent email');
    expect(p.count).toBe(12);
    expect(Object.keys(p.settings).sort()).toEqual(
      [
        'agentSelected',
        'apptLessTwoDays',
        'automaticStatus',
        'campaignId',
        'channelFilter',
        'depFilter',
        'filter',
        'labelFilter',
        'noAutomaticStatus',
        'priorityFilter',
      ].sort(),
    );
    expect(Object.keys(p.dateSelection).sort()).toEqual(['appointment', 'created', 'updated']);
    expect(p.settings.apptLessTwoDays).toBe(true);
    expect(p.dateSelection.updated).toBeNull();
    expect(p.dateSelection.created).toMatchObject({ value: '1week' });
    const c = p.dateSelection.created!;
    expect(c.ed - c.sd).toBe(7 * 86_400 - 1);
    expect(fromPreset(JSON.parse(JSON.stringify(p)))).toEqual(f);
    expect(presetKey(7)).toBe('parley.ticketPresets.7');
    // A custom status code is kept.
    expect(fromPreset(toPreset('C', { ...f, status: '7' }, 0)).status).toBe('7');
  });

  it('TICKET-08 quick ranges: today, yesterday, the last 7 days; appointments look ahead, as calendar days', () => {
    const now = new Date(2026, 10, 23, 15, 30).getTime();
    const sec = (y: number, m: number, d: number) => new Date(y, m, d).getTime() / 1000;
    expect(dateRange('current', 'updated', now)).toEqual({ sd: sec(2026, 10, 23), ed: sec(2026, 10, 24) - 1 });
    expect(dateRange('yesterday', 'created', now)).toEqual({ sd: sec(2026, 10, 22), ed: sec(2026, 10, 23) - 1 });
    expect(dateRange('1week', 'updated', now)).toEqual({ sd: sec(2026, 10, 17), ed: sec(2026, 10, 24) - 1 });
    expect(dateRange('1week', 'appointment', now)).toEqual({
      sd: Date.UTC(2026, 10, 23) / 1000,
      ed: Date.UTC(2026, 10, 29) / 1000,
    });
    expect(dateRange('', 'updated', now)).toBeNull();
  });

  it('TICKET-06 TICKET-07 the status-setter filter is kept in automaticStatus/noAutomaticStatus; assignment and first reply beside', () => {
    for (const [statusBy, auto, noAuto] of [
      ['auto', '1', ''],
      ['person', '', '1'],
      ['', '', ''],
    ] as const) {
      const g = { ...f, statusBy, automatic: '0' as const, replyTAT: '45' };
      const p = toPreset('S', g, 2);
      expect([p.settings.automaticStatus, p.settings.noAutomaticStatus]).toEqual([auto, noAuto]);
      expect(fromPreset(JSON.parse(JSON.stringify(p)))).toEqual(g);
    }
    const odd = { ...toPreset('S', f, 0), automatic: 'yes', replyTAT: '-3' };
    expect(fromPreset(odd)).toMatchObject({ automatic: '', replyTAT: '', statusBy: '' });
  });

  it('TICKET-07 a damaged preset falls back to defaults; saving a name again replaces it', () => {
    expect(
      fromPreset({ name: 'x', settings: { filter: 'nine', labelFilter: 'nope', campaignId: 'x' } } as never),
    ).toEqual(DEFAULT_FILTERS);
    const a = toPreset('A', f, 1);
    const list = savePreset(savePreset([], a), toPreset('A', DEFAULT_FILTERS, 5));
    expect(list).toHaveLength(1);
    expect(list[0]?.count).toBe(5);
  });

  it('TICKET-07 TICKET-62 TICKET-30 presets keep the search field and has / has no appointment; appt 0 never beside a day range', () => {
    for (const g of [
      { ...DEFAULT_FILTERS, search: 'nadia', searchField: 'name' as const, appt: '1' as const },
      { ...DEFAULT_FILTERS, search: '0123', searchField: 'phone' as const, appt: '0' as const },
    ])
      expect(fromPreset(JSON.parse(JSON.stringify(toPreset('P', g, 1))))).toEqual(g);
    const clash = { ...toPreset('P', { ...DEFAULT_FILTERS, apptLessTwoDays: true }, 1), appt: '0' };
    expect(fromPreset(clash)).toMatchObject({ appt: '', apptLessTwoDays: true });
    expect(fromPreset({ ...toPreset('P', DEFAULT_FILTERS, 1), searchField: 'ssn', appt: 'x' })).toMatchObject({
      searchField: '',
      appt: '',
    });
  });
});
