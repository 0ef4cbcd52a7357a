/**
 * AI-01: the offline engine against its labelled evaluation sets, per class, beside a majority-class baseline
 * computed on the same messages. The floors are set from what was measured, with room, and differ by set
 * because the sets differ in how fair they are:
 * - messages (347): written before the rules, but in view while the rules were written: optimistic figures;
 *   high floors that catch regressions;
 * - holdout (105): written after the first rules; its first (blind) figures are in docs/ai.md; the rules were
 *   then broadened with it in mind, so it is no longer blind;
 * - blind (51): written after the broadened rules and run once (scam recall 0.42); its seven missed scams then
 *   led to general patterns (a hacked old account, gift cards covering a charge, a code on the screen, a
 *   reported request for a digit code, a number that "won", money the government owes, locked unless
 *   verified), so it is no longer blind either;
 * - fresh (48, scam only): written after that, before the engine read it, never tuned on: now the fairest
 *   estimate of scam flagging (docs/ai.md has its first figures).
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyseMessage } from './analyse.js';
import { EVAL_SETS, type EvalSetName, type Evaluation, evaluate, formatEvaluation } from './evaluate.js';

interface Floor {
  precision: number;
  recall: number;
}
/** Per task, the floor of every class but `none` (and `reply`, the default action), or null for none. */
type Floors = Record<string, Floor | null>;

const FLOORS: Record<EvalSetName, Floors> = {
  messages: {
    'scam flagged': { precision: 0.9, recall: 0.9 },
    'scam kind': { precision: 0.85, recall: 0.85 },
    sales: { precision: 0.9, recall: 0.85 },
    personality: { precision: 0.85, recall: 0.7 },
    'next action': { precision: 0.9, recall: 0.85 },
  },
  holdout: {
    'scam flagged': { precision: 0.8, recall: 0.8 },
    'scam kind': { precision: 0.6, recall: 0.6 },
    sales: { precision: 0.8, recall: 0.7 },
    // 2 to 5 messages a style: per-class figures are too coarse to hold to a floor; the macro F1 is.
    personality: null,
    'next action': { precision: 0.8, recall: 0.8 },
  },
  blind: {
    'scam flagged': { precision: 0.9, recall: 0.9 },
    'scam kind': null,
    sales: { precision: 0.8, recall: 0.6 },
    personality: null,
    'next action': null,
  },
};

/** Macro F1 floors where per-class ones are not held. */
const MACRO_FLOORS: Partial<Record<EvalSetName, Record<string, number>>> = {
  holdout: { personality: 0.7 },
  blind: { 'scam kind': 0.45, personality: 0.7, 'next action': 0.7 },
};

const results = new Map<EvalSetName, Evaluation>(EVAL_SETS.map((set) => [set, evaluate(set)]));

describe.each(EVAL_SETS)('AI-01 the offline engine on the "%s" evaluation set', (set) => {
  const e = results.get(set)!;

  it(`AI-01 prints its figures (${set})`, () => {
    console.log(formatEvaluation(e));
    expect(e.messages).toBeGreaterThanOrEqual(set === 'messages' ? 300 : 50);
  });

  for (const task of e.tasks) {
    it(`AI-01 ${task.task}: macro F1 beats always answering the majority class ("${task.majority}"), and each class beats its baseline F1`, () => {
      expect(task.macroF1).toBeGreaterThan(task.baselineMacroF1);
      for (const c of task.classes.filter((x) => x.support > 0))
        expect({ class: c.label, beats: c.f1 > c.baselineF1 }).toEqual({ class: c.label, beats: true });
      const macro = MACRO_FLOORS[set]?.[task.task];
      if (macro !== undefined) expect(task.macroF1).toBeGreaterThanOrEqual(macro);
    });

    const floor = FLOORS[set][task.task];
    if (!floor) continue;
    it(`AI-01 ${task.task}: precision >= ${floor.precision} and recall >= ${floor.recall} for every class`, () => {
      const held = task.classes.filter((c) => c.label !== 'none' && c.label !== 'reply' && c.support > 0);
      expect(held.length).toBeGreaterThan(0);
      for (const c of held) {
        expect({ class: c.label, precision: c.precision >= floor.precision }).toEqual({
          class: c.label,
          precision: true,
        });
        expect({ class: c.label, recall: c.recall >= floor.recall }).toEqual({ class: c.label, recall: true });
      }
    });
  }

  it(`AI-01 hard negatives (a password reset question, a refund to one's own card) are not read as scams or sales (${set})`, () => {
    // At most one in eight hard negatives misread, on any set.
    expect(e.hardNegatives.total).toBeGreaterThan(0);
    expect(e.hardNegatives.wrong.length).toBeLessThanOrEqual(Math.floor(e.hardNegatives.total / 8));
  });
});

describe('AI-01 scam flagging on the "fresh" set (written after the last rules, never tuned on)', () => {
  const list = JSON.parse(fs.readFileSync(new URL('./eval/fresh.json', import.meta.url), 'utf8')) as {
    text: string;
    scam: string | null;
    hard_negative?: boolean;
  }[];
  const read = list.map((m) => ({ ...m, got: analyseMessage(m.text).scam.value }));
  const tp = read.filter((m) => m.got && m.scam).length;
  const fp = read.filter((m) => m.got && !m.scam).length;
  const fn = read.filter((m) => !m.got && m.scam).length;
  const precision = tp / (tp + fp);
  const recall = tp / (tp + fn);
  const f1 = (2 * precision * recall) / (precision + recall);

  it('AI-01 precision >= 0.8 and recall >= 0.7, above the majority baseline (always "not a scam": F1 0)', () => {
    console.log(
      `fresh: ${list.length} messages, ${tp + fn} scams: precision ${precision.toFixed(2)}, recall ${recall.toFixed(2)}, F1 ${f1.toFixed(2)} (baseline F1 0.00); hard negatives misread ${read.filter((m) => m.hard_negative && m.got).length} of ${read.filter((m) => m.hard_negative).length}`,
    );
    expect(list.length).toBeGreaterThanOrEqual(48);
    expect(precision).toBeGreaterThanOrEqual(0.8);
    expect(recall).toBeGreaterThanOrEqual(0.7);
    expect(f1).toBeGreaterThan(0);
  });

  it('AI-01 at most one hard negative in four is read as a scam', () => {
    const hard = read.filter((m) => m.hard_negative);
    expect(hard.length).toBeGreaterThanOrEqual(10);
    expect(hard.filter((m) => m.got).length).toBeLessThanOrEqual(Math.floor(hard.length / 4));
  });
});
