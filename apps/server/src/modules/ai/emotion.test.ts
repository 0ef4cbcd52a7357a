import { addCounts, dominantEmotion, EMOTIONS, emotionColor, OLD_EMOTIONS } from '@parley/contracts';
import { describe, expect, it } from 'vitest';
import { ruleReader, words } from './emotion.js';
import { EMOTION_CUES } from './lexicon.js';

describe('the rule reader', () => {
  it('AI-02 RT-24 emotions and context of customer messages', () => {
    const cases: [string, Record<string, number>, string][] = [
      [
        'This is the third time my parcel is late. I am really frustrated!',
        { frustration: 2, complaint: 1 },
        'Delivery',
      ],
      ['Thank you so much, it works now', { gratitude: 1, satisfaction: 1 }, ''],
      ['I am not happy with the refund', { dissatisfaction: 1 }, 'Refund'],
      ['I am not angry, just asking', { neutral: 1 }, ''],
      ['How do I reset my password?', { enquiry: 1 }, 'Account access'],
      ['The app is not working', { frustration: 1 }, 'Technical problem'],
      ['<p>I will take legal action if I don&#39;t get a refund</p>', { commitment: 1, threat: 1 }, 'Refund'],
      ['ok', { neutral: 1 }, ''],
      // A crash while signing in is a technical problem first (the earlier topic wins a tie).
      ['The app keeps crashing when I log in', { frustration: 1 }, 'Technical problem'],
      ['Why was I charged twice?', { enquiry: 1 }, 'Billing and payment'],
    ];
    for (const [text, emotion_2, context] of cases)
      expect([text, ruleReader.read(text)]).toEqual([text, { emotion_2, context }]);
  });

  it('AI-02 a phrase is counted once, the longest cue first: "not good enough" is not also "good"', () => {
    expect(ruleReader.read('Your answer is not good enough').emotion_2).toEqual({ dissatisfaction: 1 });
    expect(ruleReader.read('Thanks for nothing').emotion_2).toEqual({ sarcasm: 1 });
  });

  it('words: lowercase, markup and apostrophes gone', () => {
    expect(words("<b>It's</b> LATE&nbsp;again")).toEqual(['its', 'late', 'again']);
  });

  it('AI-11 AI-12 AI-13 AI-14 every cue names an emotion of the list; colours for old and new names; counts add; the dominant one', () => {
    for (const e of Object.keys(EMOTION_CUES)) expect(EMOTIONS).toContain(e);
    for (const e of [...EMOTIONS, ...OLD_EMOTIONS]) expect(emotionColor(e)).not.toBe('');
    expect(emotionColor('anger')).toBe('red');
    expect(emotionColor('no such')).toBe('gray');
    expect(addCounts({ anger: 1, joy: 2 }, { anger: 2, enquiry: 1 })).toEqual({ anger: 3, joy: 2, enquiry: 1 });
    expect(dominantEmotion({ joy: 2, anger: 2, enquiry: 1 })).toBe('anger');
    expect(dominantEmotion({ joy: 3, anger: 2 })).toBe('joy');
    expect(dominantEmotion({})).toBe('');
  });
});
