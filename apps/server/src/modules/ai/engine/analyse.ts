import type { AiAnalysis } from '@parley/contracts';
import { ruleReader } from '../emotion.js';
import { MAX_CHARS, sentencesOf } from './match.js';
import { readNextAction } from './nextAction.js';
import { readPersonality } from './personality.js';
import { readSales } from './sales.js';
import { readScam } from './scam.js';

/**
 * The offline engine's reading of one customer message: emotion, personality, sales and scam signals and the
 * next best action, each with the cues that made it. Pure and synchronous: the same text always reads the
 * same, and it is fast enough to run on every message (~0.05 ms of CPU, ~3 ms for 100 kB: `npm run bench --
 * ai`). Only the first MAX_CHARS characters are read; anything (empty, emoji only, any script) gets an answer.
 */
export function analyseMessage(text: string): AiAnalysis {
  const capped = typeof text === 'string' ? text.slice(0, MAX_CHARS) : '';
  const { emotion_2 } = ruleReader.read(capped);
  const s = sentencesOf(capped);
  const scam = readScam(s);
  return {
    emotion: dominant(emotion_2),
    personality: readPersonality(s, capped),
    sales: readSales(s),
    scam,
    next_action: readNextAction(s, capped, emotion_2, scam),
  };
}

/** The emotion with the most cues (the first of a tie, in the reader's order), or null when neutral. */
function dominant(counts: Record<string, number>): string | null {
  let best: string | null = null;
  let top = 0;
  for (const [e, n] of Object.entries(counts))
    if (e !== 'neutral' && n > top) {
      best = e;
      top = n;
    }
  return best;
}
