import {
  FORM_LIMITS,
  FORM_STRINGS,
  type FormField,
  type FormValue,
  isEmailAddress,
  SENDERS,
  shownDay,
} from '@parley/contracts';
import type { DB } from '../../../platform/db/db.js';
import { badRequest } from '../../../platform/http/errors.js';
import { runCommand } from '../../../platform/outbox/index.js';
import type { Conversations } from '../../messages/index.js';
import { postMessage } from '../../messages/index.js';
import { createTicket } from '../../tickets/index.js';
import { fieldsOf } from '../forms.queries.js';

/** Checks the answers against the form's fields: the stored key-to-value map, or a 400 naming the field. */
export function readAnswers(fields: FormField[], values: Record<string, string>): Record<string, FormValue> {
  const known = new Set(fields.map((f) => f.key));
  const stray = Object.keys(values).find((k) => !known.has(k));
  if (stray !== undefined) throw badRequest(FORM_STRINGS.unknownField(stray));
  const out: Record<string, FormValue> = {};
  for (const f of fields) {
    const v = (values[f.key] ?? '').trim();
    if (!v) {
      if (f.required) throw badRequest(FORM_STRINGS.required(f.label));
      continue;
    }
    if (v.length > FORM_LIMITS.answer) throw badRequest(FORM_STRINGS.tooLong(f.label));
    if (f.type === 'email' && !isEmailAddress(v)) throw badRequest(FORM_STRINGS.badEmail(f.label));
    if (f.type === 'phone' && !/^\+?[0-9][0-9 ().-]{5,24}$/.test(v)) throw badRequest(FORM_STRINGS.badPhone(f.label));
    if (f.type === 'date') {
      const d = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
      const at = d ? new Date(Date.UTC(Number(d[1]), Number(d[2]) - 1, Number(d[3]))) : null;
      if (!at || at.toISOString().slice(0, 10) !== v) throw badRequest(FORM_STRINGS.badDate(f.label));
    }
    if (f.type === 'select') {
      if (!f.options.includes(v)) throw badRequest(FORM_STRINGS.badChoice(f.label));
      out[f.key] = { name: v };
      continue;
    }
    out[f.key] = v;
  }
  return out;
}

const text = (v: FormValue | undefined) => (v === undefined ? '' : typeof v === 'string' ? v : v.name);

/**
 * A public submission: a MANUAL ticket from the customer (name, e-mail and phone answers are the
 * customer's, so the contact is found or made; `subject` is the title), its first message (the `message`
 * answer, then every other answer as "Label: value"), and the form entry. One transaction.
 */
export async function submitForm(
  db: DB,
  conversations: Conversations,
  form: { id: number; account_id: number; name: string; fields: string },
  values: Record<string, string>,
): Promise<number> {
  const fields = fieldsOf(form);
  const answers = readAnswers(fields, values);
  const name = text(answers.name);
  const email = text(answers.email);
  const lines = [
    text(answers.message),
    ...fields
      .filter((f) => !['message', 'subject'].includes(f.key) && answers[f.key] !== undefined)
      // A date reads as every screen shows one (D/M/YYYY); the entry keeps it as sent (YYYY-MM-DD).
      .map((f) => `${f.label}: ${f.type === 'date' ? shownDay(text(answers[f.key])) : text(answers[f.key])}`),
  ].filter(Boolean);
  const accountId = Number(form.account_id);
  return runCommand(db, async (trx) => {
    const ticketId = await createTicket(trx, conversations, {
      accountId,
      channel: 'MANUAL',
      title: (text(answers.subject) || `${form.name}: ${name || email || 'new request'}`).slice(0, 200),
      name,
      email,
      phone: text(answers.phone),
      fromCustomer: true,
      other: { form: form.name },
    });
    await postMessage(trx, conversations, {
      accountId,
      ticketId,
      sender: SENDERS.visitor,
      senderName: name || email || form.name,
      type: 'text',
      message: lines.join('\n'),
      fromCustomer: true,
      channel: 'MANUAL',
    });
    await trx
      .insertInto('form_entries')
      .values({
        account_id: accountId,
        form_id: form.id,
        form_data: JSON.stringify(answers),
        ticket_id: ticketId,
        created_at: Date.now(),
      })
      .execute();
    return ticketId;
  });
}
