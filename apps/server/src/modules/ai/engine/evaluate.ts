import fs from 'node:fs';
import type { AiAnalysis } from '@parley/contracts';
import { NEXT_ACTIONS, PERSONALITIES, SALES_SIGNALS, SCAM_KINDS } from '@parley/contracts';
import { analyseMessage } from './analyse.js';

/**
 * The engine against its labelled evaluation sets (used by engine.eval.test.ts and `npm run bench -- ai`):
 * precision, recall and F1 per class, beside a majority-class baseline (always answer the most frequent
 * label of the set) computed on the same messages.
 *
 * Two sets: `messages` (347 messages, written before the rules and in view while they were written) and
 * `holdout` (105 messages, written after the rules and never used to change them: the fairer estimate).
 */

export interface LabelledMessage {
  text: string;
  scam: string | null;
  sales: string | null;
  personality: string | null;
  next_action: string;
  /** A message that looks like a signal and is not one ("I forgot my password, how do I reset it?"). */
  hard_negative?: boolean;
}

export const EVAL_SETS = ['messages', 'holdout', 'blind'] as const;
export type EvalSetName = (typeof EVAL_SETS)[number];

export function loadEvalSet(name: EvalSetName): LabelledMessage[] {
  return JSON.parse(fs.readFileSync(new URL(`./eval/${name}.json`, import.meta.url), 'utf8')) as LabelledMessage[];
}

const NONE = 'none';

interface Task {
  name: string;
  classes: readonly string[];
  truth(m: LabelledMessage): string;
  predicted(a: AiAnalysis): string;
}

export const TASKS: Task[] = [
  {
    name: 'scam flagged',
    classes: ['flagged', NONE],
    truth: (m) => (m.scam ? 'flagged' : NONE),
    predicted: (a) => (a.scam.value ? 'flagged' : NONE),
  },
  {
    name: 'scam kind',
    classes: [...SCAM_KINDS, NONE],
    truth: (m) => m.scam ?? NONE,
    predicted: (a) => a.scam.value ?? NONE,
  },
  {
    name: 'sales',
    classes: [...SALES_SIGNALS, NONE],
    truth: (m) => m.sales ?? NONE,
    predicted: (a) => a.sales.value ?? NONE,
  },
  {
    name: 'personality',
    classes: [...PERSONALITIES, NONE],
    truth: (m) => m.personality ?? NONE,
    predicted: (a) => a.personality.value ?? NONE,
  },
  {
    name: 'next action',
    classes: NEXT_ACTIONS,
    truth: (m) => m.next_action,
    predicted: (a) => a.next_action.value,
  },
];

export interface ClassFigures {
  label: string;
  support: number;
  precision: number;
  recall: number;
  f1: number;
  /** The majority baseline's F1 on this class (0 unless it is the majority class). */
  baselineF1: number;
}

export interface TaskFigures {
  task: string;
  majority: string;
  classes: ClassFigures[];
  macroF1: number;
  baselineMacroF1: number;
  accuracy: number;
  baselineAccuracy: number;
}

export interface Evaluation {
  set: string;
  messages: number;
  tasks: TaskFigures[];
  /** Hard negatives the engine flagged as a scam or read a sales signal into that the label does not have. */
  hardNegatives: { total: number; wrong: string[] };
}

const f1Of = (p: number, r: number) => (p + r === 0 ? 0 : (2 * p * r) / (p + r));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);

function figures(task: Task, truth: string[], predicted: string[]): TaskFigures {
  const counts = new Map<string, number>();
  for (const t of truth) counts.set(t, (counts.get(t) ?? 0) + 1);
  const majority = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? NONE;
  const n = truth.length;
  const classes = task.classes.map((label): ClassFigures => {
    let tp = 0;
    let said = 0;
    for (let i = 0; i < n; i++) {
      if (predicted[i] === label) said++;
      if (predicted[i] === label && truth[i] === label) tp++;
    }
    const support = counts.get(label) ?? 0;
    const precision = said === 0 ? 0 : tp / said;
    const recall = support === 0 ? 0 : tp / support;
    // The baseline answers the majority label every time: precision support/n and recall 1 on it, 0 elsewhere.
    const baselineF1 = label === majority ? f1Of(support / n, 1) : 0;
    return { label, support, precision, recall, f1: f1Of(precision, recall), baselineF1 };
  });
  const scored = classes.filter((c) => c.support > 0);
  const correct = truth.filter((t, i) => t === predicted[i]).length;
  return {
    task: task.name,
    majority,
    classes,
    macroF1: mean(scored.map((c) => c.f1)),
    baselineMacroF1: mean(scored.map((c) => c.baselineF1)),
    accuracy: correct / n,
    baselineAccuracy: (counts.get(majority) ?? 0) / n,
  };
}

export function evaluate(
  set: EvalSetName,
  analyse: (text: string) => AiAnalysis = analyseMessage,
  messages: LabelledMessage[] = loadEvalSet(set),
): Evaluation {
  const analyses = messages.map((m) => analyse(m.text));
  const tasks = TASKS.map((task) =>
    figures(
      task,
      messages.map((m) => task.truth(m)),
      analyses.map((a) => task.predicted(a)),
    ),
  );
  const hard = messages.map((m, i) => ({ m, a: analyses[i]! })).filter(({ m }) => m.hard_negative);
  const wrong = hard
    .filter(({ m, a }) => (a.scam.value && !m.scam) || (a.sales.value && a.sales.value !== m.sales))
    .map(({ m }) => m.text);
  return { set, messages: messages.length, tasks, hardNegatives: { total: hard.length, wrong } };
}

const pct = (x: number) => x.toFixed(2);

/** The figures as a plain-text table, one row per class. */
export function formatEvaluation(e: Evaluation): string {
  const rows: string[][] = [['task', 'class', 'n', 'precision', 'recall', 'F1', 'baseline F1']];
  for (const t of e.tasks) {
    for (const c of t.classes)
      rows.push([t.task, c.label, String(c.support), pct(c.precision), pct(c.recall), pct(c.f1), pct(c.baselineF1)]);
    rows.push([
      t.task,
      `macro F1 (majority: ${t.majority})`,
      String(e.messages),
      '',
      `acc ${pct(t.accuracy)}`,
      pct(t.macroF1),
      `${pct(t.baselineMacroF1)} (acc ${pct(t.baselineAccuracy)})`,
    ]);
  }
  const widths = rows[0]!.map((_, k) => Math.max(...rows.map((r) => r[k]!.length)));
  const lines = rows.map((r) =>
    r.map((cell, k) => (k < 2 ? cell.padEnd(widths[k]!) : cell.padStart(widths[k]!))).join('  '),
  );
  return [
    `evaluation set "${e.set}": ${e.messages} messages`,
    ...lines,
    `hard negatives misread: ${e.hardNegatives.wrong.length} of ${e.hardNegatives.total}`,
  ].join('\n');
}
