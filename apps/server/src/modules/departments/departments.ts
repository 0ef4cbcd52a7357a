import { DEPARTMENT_EXISTS, type Department, type DepartmentInput } from '@parley/contracts';
import { sql } from 'kysely';
import type { AuthContext } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import { conflict, notFound } from '../../platform/http/errors.js';
import { runCommand, type Trx } from '../../platform/outbox/index.js';
import { recordAudit } from '../audit/recordAudit.js';

const toDepartment = (r: { id: number; name: string }): Department => ({ id: Number(r.id), name: r.name });

export async function listDepartments(db: DB, accountId: number): Promise<Department[]> {
  const rows = await db
    .selectFrom('departments')
    .select(['id', 'name'])
    .where('account_id', '=', accountId)
    .orderBy('name')
    .execute();
  return rows.map(toDepartment);
}

/** TICKET-55, TICKET-56: the departments a user of the caller's account belongs to. */
export async function departmentsOfUser(db: DB, accountId: number, userId: number): Promise<Department[]> {
  const u = await db
    .selectFrom('users')
    .select('departments')
    .where('account_id', '=', accountId)
    .where('id', '=', userId)
    .executeTakeFirst();
  if (!u) throw notFound('No such user.');
  const ids = (JSON.parse(u.departments) as number[]).filter((n) => Number.isInteger(n));
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('departments')
    .select(['id', 'name'])
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .orderBy('name')
    .execute();
  return rows.map(toDepartment);
}

async function assertNameFree(trx: Trx, accountId: number, name: string, except?: number) {
  let q = trx
    .selectFrom('departments')
    .select('id')
    .where('account_id', '=', accountId)
    .where(sql`lower(name)`, '=', name.toLowerCase());
  if (except !== undefined) q = q.where('id', '!=', except);
  if (await q.executeTakeFirst()) throw conflict(DEPARTMENT_EXISTS);
}

export async function createDepartment(db: DB, auth: AuthContext, input: DepartmentInput): Promise<Department> {
  return runCommand(db, async (trx) => {
    await assertNameFree(trx, auth.accountId, input.name);
    const row = await trx
      .insertInto('departments')
      .values({ account_id: auth.accountId, name: input.name, created_at: Date.now() })
      .returning(['id', 'name'])
      .executeTakeFirstOrThrow();
    await recordAudit(trx, {
      accountId: auth.accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'department.created',
      detail: { id: Number(row.id), name: row.name },
    });
    return toDepartment(row);
  });
}

export async function renameDepartment(
  db: DB,
  auth: AuthContext,
  id: number,
  input: DepartmentInput,
): Promise<Department> {
  return runCommand(db, async (trx) => {
    await assertNameFree(trx, auth.accountId, input.name, id);
    const row = await trx
      .updateTable('departments')
      .set({ name: input.name })
      .where('account_id', '=', auth.accountId)
      .where('id', '=', id)
      .returning(['id', 'name'])
      .executeTakeFirst();
    if (!row) throw notFound('No such department.');
    await recordAudit(trx, {
      accountId: auth.accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'department.renamed',
      detail: { id, name: input.name },
    });
    return toDepartment(row);
  });
}

/** Deletes a department: its tickets keep their history but lose the department; users leave it. */
export async function deleteDepartment(db: DB, auth: AuthContext, id: number): Promise<void> {
  await runCommand(db, async (trx) => {
    const row = await trx
      .deleteFrom('departments')
      .where('account_id', '=', auth.accountId)
      .where('id', '=', id)
      .returning('name')
      .executeTakeFirst();
    if (!row) throw notFound('No such department.');
    await trx
      .updateTable('tickets')
      .set({ department_id: null })
      .where('account_id', '=', auth.accountId)
      .where('department_id', '=', id)
      .execute();
    const members = await trx
      .selectFrom('users')
      .select(['id', 'departments'])
      .where('account_id', '=', auth.accountId)
      .execute();
    for (const m of members) {
      const ids = JSON.parse(m.departments) as number[];
      if (!ids.includes(id)) continue;
      await trx
        .updateTable('users')
        .set({ departments: JSON.stringify(ids.filter((d) => d !== id)) })
        .where('account_id', '=', auth.accountId)
        .where('id', '=', m.id)
        .execute();
    }
    await recordAudit(trx, {
      accountId: auth.accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'department.deleted',
      detail: { id, name: row.name },
    });
  });
}
