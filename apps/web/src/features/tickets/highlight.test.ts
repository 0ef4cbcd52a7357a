import { describe, expect, it } from 'vitest';
import { highlightLeft, holdHighlight } from './highlight';

describe('the new-message highlight', () => {
  it('TICKET-57 stays 5 s after a click, then clears', () => {
    expect(highlightLeft(7, 1_000)).toBe(0);
    holdHighlight(7, 1_000);
    expect(highlightLeft(7, 1_000)).toBe(5_000);
    expect(highlightLeft(7, 5_999)).toBe(1);
    expect(highlightLeft(7, 6_000)).toBe(0);
    expect(highlightLeft(7, 1_000)).toBe(0); // gone for good once expired
  });
});
