import { ADV_NUMBER_OPS, ADV_TEXT_FIELDS, ADV_TEXT_OPS, AdvCondition } from '@parley/contracts';

/** One row of the editor: the value as typed (a ticket number is sent as a number once it is one). */
export interface AdvRow {
  field: string;
  op: string;
  value: string;
}

export const MAX_ADV_ROWS = 10;

export const ADV_FIELDS = [...ADV_TEXT_FIELDS, 'ticket_number'] as const;
export const opsOf = (field: string): readonly string[] => (field === 'ticket_number' ? ADV_NUMBER_OPS : ADV_TEXT_OPS);

/**
 * The rows that make a condition the server accepts (TICKET-06 `advFilter`): a row still being written (no
 * value, or a ticket number that is not a whole number) is left out rather than failing the whole list.
 */
export function advConditions(rows: readonly AdvRow[]): AdvCondition[] {
  const out: AdvCondition[] = [];
  for (const r of rows.slice(0, MAX_ADV_ROWS)) {
    const value = r.value.trim();
    if (!value) continue;
    const candidate =
      r.field === 'ticket_number' ? { ...r, value: /^\d{1,15}$/.test(value) ? Number(value) : NaN } : { ...r, value };
    const ok = AdvCondition.safeParse(candidate);
    if (ok.success) out.push(ok.data);
  }
  return out;
}

/** Rows read back from a saved preset: anything that is not a row of a known field and operator is dropped. */
export function readAdvRows(v: unknown): AdvRow[] {
  if (!Array.isArray(v)) return [];
  return v
    .filter(
      (r): r is AdvRow =>
        !!r &&
        typeof r === 'object' &&
        (ADV_FIELDS as readonly unknown[]).includes(r.field) &&
        opsOf(r.field).includes(r.op) &&
        typeof r.value === 'string',
    )
    .slice(0, MAX_ADV_ROWS)
    .map((r) => ({ field: r.field, op: r.op, value: r.value.slice(0, 200) }));
}
