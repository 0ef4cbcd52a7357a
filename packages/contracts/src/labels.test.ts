import { describe, expect, it } from 'vitest';
import { LABEL_STRINGS, LabelUpdateInput, NEW_LABEL, parseDay, validateLabel } from './labels.js';

const good = { name: 'Urgent', color: '#FF0000', colorDark: '#00ff00', level: 2, sla: 15 };

describe('labels', () => {
  it('LABEL-07 LABEL-08 a new label passes its own check', () => {
    expect(NEW_LABEL).toEqual({ name: 'New Label', color: '#000000', colorDark: '#FFFFFF', level: 0, sla: 30 });
    expect(validateLabel(NEW_LABEL)).toBeNull();
    expect(validateLabel({ ...good, level: '3', sla: ' 0 ' })).toBeNull();
  });

  it('LABEL-04 LABEL-05 LABEL-06 the first failure, in the spec words', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: '' }, LABEL_STRINGS.empty],
      [{ name: '  ' }, LABEL_STRINGS.empty],
      [{ colorDark: undefined }, LABEL_STRINGS.empty],
      [{ sla: '' }, LABEL_STRINGS.empty],
      [{ level: '1.5' }, LABEL_STRINGS.wholeNumber],
      [{ level: 1.5 }, LABEL_STRINGS.wholeNumber],
      [{ sla: 'abc' }, LABEL_STRINGS.wholeNumber],
      [{ sla: -1 }, LABEL_STRINGS.wholeNumber],
      [{ level: '1e3' }, LABEL_STRINGS.wholeNumber],
      [{ color: '#12345' }, LABEL_STRINGS.color],
      [{ colorDark: 'red' }, LABEL_STRINGS.color],
      [{ name: '', level: 'x', color: 'y' }, LABEL_STRINGS.empty],
      [{ level: 'x', color: 'y' }, LABEL_STRINGS.wholeNumber],
    ];
    for (const [change, message] of cases)
      expect(validateLabel({ ...good, ...change }), JSON.stringify(change)).toBe(message);
    expect(LABEL_STRINGS.empty).toBe('Please check all the fields are not empty.');
    expect(LABEL_STRINGS.wholeNumber).toBe('Priority level and SLA must be whole number.');
    expect(LABEL_STRINGS.color).toBe('Color format is not correct');
  });

  it('LABEL-09 LABEL-15 inputs', () => {
    expect(LabelUpdateInput.parse({})).toEqual({ labelArray: [], delete: [] });
    expect(parseDay('7')).toEqual({ ok: true, day: 7 });
    expect(parseDay('')).toEqual({ ok: false, error: LABEL_STRINGS.dayEmpty });
    expect(parseDay(2.5)).toEqual({ ok: false, error: LABEL_STRINGS.dayWhole });
  });
});
