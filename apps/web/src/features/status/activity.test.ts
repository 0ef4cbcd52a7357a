import { describe, expect, it } from 'vitest';
import { activitySentence } from './activity';

describe('team activity in words', () => {
  it('reads as sentences with the display name', () => {
    expect(activitySentence({ status: 'OFFLINE', second_status: 'BUSY', reason: 'x' }, 'Dana')).toBe(
      'Dana went offline',
    );
    expect(activitySentence({ status: 'ONLINE', second_status: '', reason: '' }, 'Dana')).toBe('Dana came online');
    expect(activitySentence({ status: 'ONLINE', second_status: 'BUSY', reason: 'lunch' }, 'Dana')).toBe(
      'Dana is busy: lunch',
    );
    expect(activitySentence({ status: 'ONLINE', second_status: 'Training', reason: '' }, 'Dana')).toBe(
      'Dana is Training',
    );
  });
});
