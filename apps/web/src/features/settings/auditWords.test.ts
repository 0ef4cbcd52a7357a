import { describe, expect, it } from 'vitest';
import { auditDetails, auditSentence } from './auditWords';

describe('the audit log in words', () => {
  it('says what happened as a sentence, details without JSON', () => {
    expect(auditSentence({ action: 'signin.failed', detail: {} }, 'Dana Scully')).toBe('Dana Scully failed to sign in');
    expect(auditSentence({ action: 'something.new_thing', detail: {} }, 'Dana')).toBe('Dana something new thing');
    const d = auditDetails({ user: 'fox', changes: { rank: 3, type: 'agent' }, assignee: ['a', 'b'], how: '' });
    expect(d).toBe('user: fox; changes: rank 3, type agent; assignee: a, b; how: none');
    expect(d).not.toMatch(/[{}"]/);
  });
});
