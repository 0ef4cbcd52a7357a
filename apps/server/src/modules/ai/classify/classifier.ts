import { type AiClassification, SENDERS, WORKSPACE_CHANNEL } from '@parley/contracts';
import { sql } from 'kysely';
import type { DB } from '../../../platform/db/db.js';
import { runCommand } from '../../../platform/outbox/index.js';
import type { Task } from '../../../platform/scheduler.js';
import { htmlToText } from '../../messages/index.js';
import { classify, type NbExample, type NbModel, trainNaiveBayes } from './naiveBayes.js';
import { TEXT_CAP, terms } from './terms.js';

/** A model needs this many labelled tickets (with a customer's text)... */
export const MIN_LABELLED = 50;
/** ...and at least two labels carried by this many tickets each (one label alone is no choice). */
export const MIN_PER_CLASS = 5;
/** Training reads the account's newest labelled tickets, at most this many (bounds time and memory). */
export const TRAIN_MAX_TICKETS = 2_000;
/** The scheduled task retrains a model older than this. */
export const RETRAIN_AFTER_MS = 20 * 3600_000;
/** Accounts retrained per run of the task, stalest first (one run stays short whatever the installation). */
const ACCOUNTS_PER_RUN = 20;
/** Parsed models kept in memory (the accounts asked most recently). */
const PARSED_MAX = 64;
/** A stored "not enough data" is trusted this long before the tickets are read again. */
const NOT_ENOUGH_TTL_MS = 60_000;

const TEXT_TYPES = ['text', 'text/html'];

/** The class of a labelled ticket: its first label (the order the ticket's labels were given) that still exists. */
export const classOf = (labelIds: number[], live: Map<number, string>): string | undefined => {
  for (const id of labelIds) {
    const name = live.get(id);
    if (name !== undefined) return name;
  }
  return undefined;
};

const parseIds = (json: string): number[] => {
  try {
    const v = JSON.parse(json);
    return Array.isArray(v) ? v.map(Number).filter(Number.isInteger) : [];
  } catch {
    return [];
  }
};

/**
 * The account's labelled tickets as training examples: the newest TRAIN_MAX_TICKETS tickets that carry a
 * label, each with the words of its customer's messages (sender `visitor`, text or HTML, not deleted).
 * Workspace chats have no customer and are left out. Everything is read with the account's id.
 */
export async function labelledExamples(db: DB, accountId: number): Promise<NbExample[]> {
  const labels = await db
    .selectFrom('labels')
    .select(['id', 'name'])
    .where('account_id', '=', accountId)
    .where('removed', '=', 0)
    .execute();
  const live = new Map(labels.map((l) => [Number(l.id), l.name]));
  if (live.size === 0) return [];
  const tickets = await db
    .selectFrom('tickets')
    .select(['id', 'label'])
    .where('account_id', '=', accountId)
    .where('label', 'not in', ['[]', ''])
    .where('channel', '<>', WORKSPACE_CHANNEL)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(TRAIN_MAX_TICKETS)
    .execute();
  const classes = new Map<number, string>();
  for (const t of tickets) {
    const c = classOf(parseIds(t.label), live);
    if (c !== undefined) classes.set(Number(t.id), c);
  }
  const text = new Map<number, string>();
  const ids = [...classes.keys()];
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db
      .selectFrom('messages')
      .select(['ticket_id', 'type', 'message'])
      .where('account_id', '=', accountId)
      .where('ticket_id', 'in', ids.slice(i, i + 500))
      .where('deleted_at', 'is', null)
      .where('sender', '=', SENDERS.visitor)
      .where('type', 'in', TEXT_TYPES)
      .orderBy('id')
      .execute();
    for (const r of rows) {
      const id = Number(r.ticket_id);
      const had = text.get(id) ?? '';
      if (had.length >= TEXT_CAP) continue;
      const body = r.type === 'text/html' ? htmlToText(r.message) : r.message;
      text.set(id, `${had} ${body}`.slice(0, TEXT_CAP));
    }
  }
  const out: NbExample[] = [];
  for (const [id, label] of classes) {
    const ws = terms(text.get(id) ?? '');
    if (ws.length > 0) out.push({ label, words: ws });
  }
  return out;
}

/** Whether examples are enough to train on; when not, what "not enough data" says (labelled, needed). */
export function sufficiency(examples: NbExample[]): { ok: true } | { ok: false; labelled: number; needed: number } {
  const perClass = new Map<string, number>();
  for (const e of examples) perClass.set(e.label, (perClass.get(e.label) ?? 0) + 1);
  const sizes = [...perClass.values()].sort((a, b) => b - a);
  const labelled = examples.length;
  if (labelled < MIN_LABELLED) return { ok: false, labelled, needed: MIN_LABELLED };
  const second = sizes[1] ?? 0;
  // Enough tickets but one label (nearly) alone: the missing tickets must carry another label.
  if (second < MIN_PER_CLASS) return { ok: false, labelled, needed: labelled + (MIN_PER_CLASS - second) };
  return { ok: true };
}

export type TrainResult = { model: NbModel; labelled: number } | { model: null; labelled: number; needed: number };

/**
 * Reads the account's labelled tickets and stores what they make (replacing the last): the model when they
 * are enough, else "not enough data" with the counts (so the task rotates over such accounts too).
 */
export async function trainAccount(db: DB, accountId: number, now = Date.now()): Promise<TrainResult> {
  const examples = await labelledExamples(db, accountId);
  const enough = sufficiency(examples);
  const model = enough.ok ? trainNaiveBayes(examples) : null;
  const row = {
    model: model ? JSON.stringify(model) : '',
    labelled: examples.length,
    classes: model ? model.classes.length : 0,
    needed: enough.ok ? 0 : enough.needed,
    trained_at: now,
  };
  await runCommand(db, (trx) =>
    trx
      .insertInto('ai_models')
      .values({ account_id: accountId, ...row })
      .onConflict((oc) => oc.column('account_id').doUpdateSet(row))
      .execute(),
  );
  return model ? { model, labelled: examples.length } : { model: null, labelled: row.labelled, needed: row.needed };
}

/**
 * Classification per account: the stored model, parsed once and kept while its `trained_at` is unchanged.
 * An account without a model is trained on demand (once at a time per account in this process); a stored
 * "not enough data" is trusted for NOT_ENOUGH_TTL_MS, so a small account's every message does not read its
 * tickets again, and one that has just labelled enough tickets gets its model within that time.
 */
export class Classifiers {
  private readonly parsed = new Map<number, { at: number; model: NbModel }>();
  private readonly training = new Map<number, Promise<TrainResult>>();

  constructor(
    private readonly db: DB,
    private readonly now: () => number = Date.now,
  ) {}

  async classify(accountId: number, text: string): Promise<AiClassification> {
    const model = await this.modelOf(accountId);
    if (model.model === null) return { status: 'not_enough_data', labelled: model.labelled, needed: model.needed };
    const answer = classify(model.model, terms(text));
    // None of the words is known to the model: the message gives it nothing to go on but the prior.
    if (!answer) return { status: 'not_enough_data', labelled: model.labelled, needed: model.labelled + 1 };
    return {
      status: 'ok',
      label: answer.label,
      confidence: Math.round(answer.confidence * 1000) / 1000,
      cues: answer.cues.map((c) => ({ cue: c.word, means: `points to "${answer.label}"` })),
    };
  }

  /** Trains now (the task, the first question of an account, or a test); one training per account at a time. */
  train(accountId: number): Promise<TrainResult> {
    const running = this.training.get(accountId);
    if (running) return running;
    const p = trainAccount(this.db, accountId, this.now()).finally(() => this.training.delete(accountId));
    this.training.set(accountId, p);
    return p;
  }

  private async modelOf(accountId: number): Promise<TrainResult> {
    const row = await this.db
      .selectFrom('ai_models')
      .select(['model', 'labelled', 'needed', 'trained_at'])
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (!row) return this.train(accountId);
    const at = Number(row.trained_at);
    if (row.model === '') {
      if (this.now() - at >= NOT_ENOUGH_TTL_MS) return this.train(accountId);
      return { model: null, labelled: Number(row.labelled), needed: Number(row.needed) };
    }
    let hit = this.parsed.get(accountId);
    if (!hit || hit.at !== at) {
      hit = { at, model: JSON.parse(row.model) as NbModel };
      this.parsed.delete(accountId);
      this.parsed.set(accountId, hit);
      // Bounded: the models of the accounts asked most recently.
      if (this.parsed.size > PARSED_MAX) this.parsed.delete(this.parsed.keys().next().value!);
    }
    return { model: hit.model, labelled: Number(row.labelled) };
  }
}

/**
 * `trainClassifiers`: hourly, (re)trains the accounts with at least MIN_LABELLED labelled tickets whose model
 * is missing or older than RETRAIN_AFTER_MS (so each about once a day), at most ACCOUNTS_PER_RUN a run,
 * stalest first. Each account is trained on its own tickets alone.
 */
export const trainClassifiers = (db: DB, classifiers: Classifiers, now: () => number = Date.now): Task => ({
  name: 'trainClassifiers',
  everyMs: 3600_000,
  async run() {
    const before = now() - RETRAIN_AFTER_MS;
    const rows = await sql<{ account_id: number }>`
      select t.account_id from
        (select account_id from tickets where label not in ('[]', '') group by account_id
          having count(*) >= ${MIN_LABELLED}) t
        left join ai_models m on m.account_id = t.account_id
      where m.trained_at is null or m.trained_at < ${before}
      order by coalesce(m.trained_at, 0), t.account_id
      limit ${ACCOUNTS_PER_RUN}`.execute(db);
    for (const r of rows.rows) await classifiers.train(Number(r.account_id));
  },
});
