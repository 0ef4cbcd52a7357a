import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from './platform/db/db.js';
import { tempDir } from './testing/support.js';

const exec = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../../..');
const dir = tempDir('parley-cli-');

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await exec(process.execPath, ['--import', 'tsx', 'apps/server/src/cli.ts', ...args], {
      cwd: root,
      env: { ...process.env, DATA_DIR: dir, DATABASE_URL: '' },
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('FOUNDATION command line', () => {
  it('account:create and user:create make a user in that account', async () => {
    const a = await cli('account:create', '--name', 'Globex');
    expect(a.code).toBe(0);
    const id = /Created account (\d+)/.exec(a.stdout)?.[1];
    expect(id).toBeDefined();
    const u = await cli(
      'user:create',
      '--account',
      id!,
      '--username',
      'gina',
      '--password',
      'longenough',
      '--type',
      'supervisor',
    );
    expect(u.stdout).toContain('Created supervisor gina');

    const { db, close } = openDatabase({ dataDir: dir });
    const row = await db.selectFrom('users').selectAll().where('username', '=', 'gina').executeTakeFirstOrThrow();
    await close();
    expect(Number(row.account_id)).toBe(Number(id));
    expect(row.type).toBe('supervisor');
    expect(JSON.parse(row.permission)).toEqual(['view_report']);
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
  });

  it('CALL-02 user:sip sets a user SIP line in its account only; bad input changes nothing', async () => {
    const a = await cli('account:create', '--name', 'Sipco');
    const id = /Created account (\d+)/.exec(a.stdout)?.[1] ?? '';
    expect(id, a.stdout).not.toBe('');
    await cli('user:create', '--account', id, '--username', 'sid', '--password', 'longenough', '--type', 'agent');
    const ok = await cli('user:sip', '--account', id, '--username', 'SID', '--active', '1', '--number', '1001');
    expect(ok.code, ok.stderr).toBe(0);
    const bad: [string[], string][] = [
      [['user:sip', '--account', id, '--username', 'sid', '--active', 'yes'], '--active must be 0 or 1'],
      [['user:sip', '--account', id, '--username', 'sid'], 'needs --active'],
      [['user:sip', '--account', '999', '--username', 'sid', '--active', '0'], 'There is no user sid'],
    ];
    for (const [args, message] of bad) {
      const r = await cli(...args);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(message);
    }
    const { db, close } = openDatabase({ dataDir: dir });
    const row = await db.selectFrom('users').selectAll().where('username', '=', 'sid').executeTakeFirstOrThrow();
    await close();
    expect([row.sip_active, row.sip_number, row.sip_password]).toEqual([1, '1001', '']);
  }, 120_000);

  it('PLAN-13 account:update sets plan, feature flags and trial end', async () => {
    const a = await cli('account:create', '--name', 'Initech', '--account-type', '0', '--plan', '0');
    const id = /Created account (\d+)/.exec(a.stdout)?.[1] ?? '';
    const u = await cli(
      'account:update',
      '--account',
      id,
      '--plan',
      '3',
      '--features',
      'dashboard,scam_calls',
      '--trial-days',
      '0',
    );
    expect(u.code).toBe(0);
    const bad = await cli('account:update', '--account', id, '--features', 'teleport');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('not teleport');
    const { db, close } = openDatabase({ dataDir: dir });
    const row = await db.selectFrom('accounts').selectAll().where('id', '=', Number(id)).executeTakeFirstOrThrow();
    await close();
    expect(row.plan).toBe(3);
    expect(JSON.parse(row.features)).toEqual(['dashboard', 'scam_calls']);
    expect(Number(row.trial_ends_at)).toBeLessThanOrEqual(Date.now());
  });

  // Six CLI processes, each loading the server's modules: started together, and given time on a busy machine.
  it('refuses bad input with a clear message and writes nothing', { timeout: 120_000 }, async () => {
    const usernames = async () => {
      const { db, close } = openDatabase({ dataDir: dir });
      const rows = await db.selectFrom('users').select('username').orderBy('id').execute();
      await close();
      return rows.map((u) => u.username);
    };
    const before = await usernames();
    expect(before).toContain('gina');
    const cases = [
      [
        ['user:create', '--account', '999', '--username', 'x1', '--password', 'longenough', '--type', 'agent'],
        'There is no account 999',
      ],
      [['user:create', '--account', '1', '--username', 'x2', '--password', 'short', '--type', 'agent'], '--password'],
      [
        ['user:create', '--account', '1', '--username', 'x3', '--password', 'longenough', '--type', 'boss'],
        '--type must be one of',
      ],
      [
        ['user:create', '--account', '1', '--username', 'GINA', '--password', 'longenough', '--type', 'agent'],
        'already taken',
      ],
      [['account:create'], 'needs --name'],
      [['frobnicate'], 'Unknown command'],
    ] as const;
    const results = await Promise.all(cases.map(([args]) => cli(...args)));
    cases.forEach(([args, message], k) => {
      expect(results[k]!.code, args.join(' ')).toBe(1);
      expect(results[k]!.stderr).toContain(message);
    });
    // Other tests of this file add their own users to the same data dir; these calls add none.
    expect(await usernames()).toEqual(before);
  });

  it("demo creates an admin, 3 agents, departments, labels and tickets with messages across channels, each with its sender's name", async () => {
    const r = await cli('demo', '--tickets', '120', '--password', 'demo-password');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/admin\s+demo-admin\s+demo-password/);
    const { db, close } = openDatabase({ dataDir: dir });
    const account = Number(/account (\d+)/.exec(r.stdout)?.[1]);
    const count = async (table: 'users' | 'departments' | 'labels' | 'tickets' | 'messages') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .where('account_id', '=', account)
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await count('users')).toBe(4);
    expect(await count('departments')).toBe(3);
    expect(await count('labels')).toBe(5);
    expect(await count('tickets')).toBe(120);
    expect(await count('messages')).toBeGreaterThanOrEqual(240);
    const channels = await db
      .selectFrom('tickets')
      .select('channel')
      .distinct()
      .where('account_id', '=', account)
      .execute();
    // Who said what reads as people: the customer's name on theirs, an agent's display name on an agent's.
    const said = await db
      .selectFrom('messages')
      .innerJoin('tickets', 'tickets.id', 'messages.ticket_id')
      .select(['messages.sender', 'messages.sender_name', 'tickets.name'])
      .where('messages.account_id', '=', account)
      .execute();
    await close();
    expect(channels.length).toBeGreaterThan(5);
    for (const m of said) {
      if (m.sender === 'visitor') expect(m.sender_name).toBe(m.name);
      else expect(['Alex Agent', 'Sam Supervisor', 'Kim Agent']).toContain(m.sender_name);
    }
  });
});
