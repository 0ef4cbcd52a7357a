import { describe, expect, it } from 'vitest';
import { advConditions, MAX_ADV_ROWS, readAdvRows } from './advConditions';

describe('advanced ticket conditions (TICKET-06 advFilter)', () => {
  it('TICKET-06 only complete rows are sent; a ticket number is sent as a whole number', () => {
    expect(
      advConditions([
        { field: 'title', op: 'contains', value: '  boiler ' },
        { field: 'name', op: 'is', value: '   ' },
        { field: 'ticket_number', op: 'gt', value: '12a' },
        { field: 'ticket_number', op: 'lt', value: '120' },
        { field: 'ticket_number', op: 'contains', value: '5' },
      ]),
    ).toEqual([
      { field: 'title', op: 'contains', value: 'boiler' },
      { field: 'ticket_number', op: 'lt', value: 120 },
    ]);
  });

  it('TICKET-06 TICKET-07 rows read back from a preset: unknown fields and operators are dropped, at most 10', () => {
    const many = Array.from({ length: 14 }, (_, i) => ({ field: 'email', op: 'starts_with', value: `a${i}` }));
    expect(readAdvRows(many)).toHaveLength(MAX_ADV_ROWS);
    expect(
      readAdvRows([
        { field: 'password', op: 'is', value: 'x' },
        { field: 'phone', op: 'gt', value: '1' },
        { field: 'phone', op: 'is_not', value: 7 },
        { field: 'case_type', op: 'is_not', value: 'Refund' },
        null,
      ]),
    ).toEqual([{ field: 'case_type', op: 'is_not', value: 'Refund' }]);
    expect(readAdvRows('nope')).toEqual([]);
  });
});
