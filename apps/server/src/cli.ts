import path from 'node:path';
import { parseArgs } from 'node:util';
import { ACCOUNT_FEATURES, ACCOUNT_TYPES, PLANS, USER_TYPES, type UserType } from '@parley/contracts';
import { BackupError, backupDatabase, describeBackup, restoreDatabase } from './cli/backup.js';
import { seedDemo } from './cli/demo.js';
import { migrateToLatest } from './migrations/index.js';
import { createAccount, createUser } from './modules/accounts/index.js';
import { allPrices, removePrice, setPrice } from './modules/billing/index.js';
import { backfillTicketFacts } from './modules/reports/index.js';
import { ConfigError, loadConfig } from './platform/config.js';
import { openDatabase } from './platform/db/db.js';
import { AppError } from './platform/http/errors.js';
import { runCommand } from './platform/outbox/index.js';

const HELP = `Parley command line. Usage: npm run cli -- <command> [options]

  db:migrate                      apply pending database migrations
  account:create --name NAME [--plan N] [--account-type N]
                                  create an account; prints its id
  account:update --account ID [--plan N] [--account-type N] [--features a,b] [--trial-days N]
                 [--subscription-days N]
                                  change an account's plan, type, feature flags (dashboard, scam_calls,
                                  customer_analysis) or when its trial / subscription ends (0 = ended now)
  user:create --account ID --username U --password P --type admin|supervisor|agent
              [--name NAME] [--email E]
                                  create a user in an account
  user:sip --account ID --username U [--active 0|1] [--number N] [--sip-password P]
                                  set a user's SIP line (CALL-02, CALL-03: the softphone shows when active)
  pricing:list                    list the price rows (country, plan, currency, price, tax)
  pricing:set --country CC|* --plan 1|2|3 --currency CUR --price 20.00 --tax 0.06
                                  set the price per user per month of a plan in a country (* is the
                                  default for countries without rows); tax is a fraction (0.06 = 6%)
  pricing:remove --country CC --plan N
                                  remove a country's row (the country falls back to the default)
  reports:backfill [--account ID]
                                  build the reports' facts of conversations that have none yet (made
                                  before they were kept); safe to run again and while the server runs
  backup FILE [--force]           copy the SQLite database into FILE; safe while the server runs (--force
                                  replaces an existing FILE). PostgreSQL: pg_dump, see docs/deploy.md
  restore FILE                    replace the SQLite database with the backup FILE (stop the server first;
                                  the database it replaces is kept beside it as parley.db.before-restore-*)
  demo [--tickets N] [--password P]
                                  create a demo workspace (admin, 3 agents, departments, labels,
                                  tickets with messages) and print the sign-in credentials

The database is the one the server uses: DATABASE_URL, else SQLite under DATA_DIR (default ./data).`;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

async function main() {
  const [command, ...rest] = process.argv.slice(2);
  if (!command || command === 'help' || command === '--help') {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      force: { type: 'boolean' },
      name: { type: 'string' },
      plan: { type: 'string' },
      'account-type': { type: 'string' },
      account: { type: 'string' },
      username: { type: 'string' },
      password: { type: 'string' },
      type: { type: 'string' },
      email: { type: 'string' },
      tickets: { type: 'string' },
      features: { type: 'string' },
      'trial-days': { type: 'string' },
      'subscription-days': { type: 'string' },
      active: { type: 'string' },
      number: { type: 'string' },
      'sip-password': { type: 'string' },
      country: { type: 'string' },
      currency: { type: 'string' },
      price: { type: 'string' },
      tax: { type: 'string' },
    },
  });
  const num = (v: string | undefined, what: string, def?: number): number => {
    if (v === undefined && def !== undefined) return def;
    const n = Number(v);
    if (v === undefined || !Number.isInteger(n) || n < 0) fail(`--${what} must be a whole number`);
    return n;
  };
  const config = loadConfig();
  if (command === 'backup' || command === 'restore') {
    const [file, ...extra] = positionals;
    if (!file || extra.length) fail(`Usage: npm run cli -- ${command} FILE${command === 'backup' ? ' [--force]' : ''}`);
    if (config.DATABASE_URL)
      fail(`${command} is for SQLite; this server uses PostgreSQL: use pg_dump / pg_restore (docs/deploy.md)`);
    const dbFile = path.resolve(config.DATA_DIR, 'parley.db');
    try {
      if (command === 'backup') {
        const r = await backupDatabase(dbFile, file, { force: values.force });
        process.stdout.write(`Backup written to ${r.file} (${describeBackup(r)})\n`);
      } else {
        const r = restoreDatabase(dbFile, file);
        process.stdout.write(
          `Restored ${dbFile} from ${path.resolve(file)} (${describeBackup(r)})${r.keptAs ? `; the database it replaced is kept as ${r.keptAs}` : ''}\n`,
        );
      }
    } catch (err) {
      if (err instanceof BackupError) fail(err.message);
      throw err;
    }
    return;
  }
  if (positionals.length) fail(`${command} takes no argument "${positionals[0]}"`);
  const { db, dialect, close } = openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
  try {
    const applied = await migrateToLatest(db, dialect);
    switch (command) {
      case 'db:migrate':
        process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'The database is up to date.\n');
        break;
      case 'account:create': {
        if (!values.name?.trim()) fail('account:create needs --name');
        const r = await runCommand(db, (trx) =>
          createAccount(trx, {
            name: values.name!.trim(),
            plan: num(values.plan, 'plan', PLANS.starter),
            accountType: num(values['account-type'], 'account-type', ACCOUNT_TYPES.regular),
          }),
        );
        process.stdout.write(`Created account ${r.accountId} (${values.name})\n`);
        break;
      }
      case 'account:update': {
        const accountId = num(values.account, 'account');
        const account = await db.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst();
        if (!account) fail(`There is no account ${accountId}`);
        const features =
          values.features === undefined
            ? undefined
            : values.features
                .split(',')
                .map((f) => f.trim())
                .filter(Boolean);
        const unknown = features?.filter((f) => !(ACCOUNT_FEATURES as readonly string[]).includes(f)) ?? [];
        if (unknown.length) fail(`--features may name ${ACCOUNT_FEATURES.join(', ')}; not ${unknown.join(', ')}`);
        const days = (v: string | undefined, what: string) =>
          v === undefined ? undefined : Date.now() + num(v, what) * 24 * 3600 * 1000;
        const set = {
          ...(values.plan === undefined ? {} : { plan: num(values.plan, 'plan') }),
          ...(values['account-type'] === undefined
            ? {}
            : { account_type: num(values['account-type'], 'account-type') }),
          ...(features ? { features: JSON.stringify(features) } : {}),
          ...(values['trial-days'] === undefined ? {} : { trial_ends_at: days(values['trial-days'], 'trial-days') }),
          ...(values['subscription-days'] === undefined
            ? {}
            : { subscription_ends_at: days(values['subscription-days'], 'subscription-days') }),
        };
        if (Object.keys(set).length === 0) fail('account:update needs something to change');
        await db
          .updateTable('accounts')
          .set({ ...set, updated_at: Date.now() })
          .where('id', '=', accountId)
          .execute();
        process.stdout.write(`Updated account ${accountId}: ${Object.keys(set).join(', ')}\n`);
        break;
      }
      case 'user:create': {
        const accountId = num(values.account, 'account');
        if (!values.username?.trim()) fail('user:create needs --username');
        if (!values.password || values.password.length < 8)
          fail('user:create needs --password of 8 characters or more');
        if (!USER_TYPES.includes(values.type as UserType)) fail(`--type must be one of ${USER_TYPES.join(', ')}`);
        const account = await db.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst();
        if (!account) fail(`There is no account ${accountId}`);
        const username = values.username!.trim();
        const r = await runCommand(db, (trx) =>
          createUser(trx, {
            accountId,
            username,
            name: values.name ?? username,
            email: values.email ?? '',
            password: values.password!,
            type: values.type as UserType,
          }),
        );
        process.stdout.write(`Created ${values.type} ${username} (user ${r.userId}) in account ${accountId}\n`);
        break;
      }
      case 'user:sip': {
        const accountId = num(values.account, 'account');
        if (!values.username?.trim()) fail('user:sip needs --username');
        if (values.active !== undefined && values.active !== '0' && values.active !== '1')
          fail('--active must be 0 or 1');
        const set = {
          ...(values.active === undefined ? {} : { sip_active: Number(values.active) }),
          ...(values.number === undefined ? {} : { sip_number: values.number.trim() }),
          ...(values['sip-password'] === undefined ? {} : { sip_password: values['sip-password'] }),
        };
        if (Object.keys(set).length === 0) fail('user:sip needs --active, --number or --sip-password');
        const r = await db
          .updateTable('users')
          .set({ ...set, updated_at: Date.now() })
          .where('account_id', '=', accountId)
          .where((eb) => eb(eb.fn('lower', ['username']), '=', values.username!.trim().toLowerCase()))
          .executeTakeFirst();
        if (Number(r.numUpdatedRows) === 0) fail(`There is no user ${values.username} in account ${accountId}`);
        process.stdout.write(`Updated the SIP line of ${values.username} in account ${accountId}\n`);
        break;
      }
      case 'pricing:list': {
        for (const p of await allPrices(db))
          process.stdout.write(`${p.country}\t${p.plan}\t${p.currency}\t${p.price}\t${p.tax}\n`);
        break;
      }
      case 'pricing:set': {
        const row = {
          country: (values.country ?? '').trim().toUpperCase(),
          plan: num(values.plan, 'plan'),
          currency: (values.currency ?? '').trim().toUpperCase(),
          price: (values.price ?? '').trim(),
          tax: (values.tax ?? '').trim(),
        };
        try {
          await setPrice(db, row);
        } catch (err) {
          fail(`pricing:set: ${err instanceof Error ? err.message : String(err)}`);
        }
        process.stdout.write(
          `Price set: ${row.country} plan ${row.plan} ${row.currency} ${row.price}, tax ${row.tax}\n`,
        );
        break;
      }
      case 'pricing:remove': {
        const country = (values.country ?? '').trim().toUpperCase();
        let removed = false;
        try {
          removed = await removePrice(db, country, num(values.plan, 'plan'));
        } catch (err) {
          fail(`pricing:remove: ${err instanceof Error ? err.message : String(err)}`);
        }
        if (!removed) fail(`There is no price row for ${country} plan ${values.plan}`);
        process.stdout.write(`Removed the price of plan ${values.plan} in ${country}\n`);
        break;
      }
      case 'reports:backfill': {
        const accountId = values.account === undefined ? undefined : num(values.account, 'account');
        const written = await backfillTicketFacts(db, { accountId });
        process.stdout.write(`Report facts written for ${written} conversations\n`);
        break;
      }
      case 'demo': {
        const r = await seedDemo(db, { tickets: num(values.tickets, 'tickets', 300), password: values.password });
        process.stdout.write(
          `Demo workspace created (account ${r.accountId}): ${r.tickets} tickets, ${r.messages} messages.\nSign in with:\n${r.users
            .map((u) => `  ${u.type.padEnd(10)} ${u.username.padEnd(14)} ${u.password}`)
            .join('\n')}\n`,
        );
        break;
      }
      default:
        fail(`Unknown command "${command}".\n\n${HELP}`);
    }
  } finally {
    await close();
  }
}

main().catch((err) => {
  if (err instanceof ConfigError || err instanceof AppError) fail(err.message);
  fail(`Failed: ${err instanceof Error ? err.message : String(err)}`);
});
