#!/usr/bin/env node
// `npm test`'s first step: the end-to-end tests need Debian packages (Chromium, Kamailio with its WebSocket
// module, Dovecot's IMAP server). What is missing is installed with apt-get when this runs as root;
// otherwise the run stops at once with the one command that installs it. Set PARLEY_SKIP_PRETEST=1 to skip.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

if (process.env.PARLEY_SKIP_PRETEST === '1') process.exit(0);

const exists = (p) => fs.existsSync(p);
// Kamailio's WebSocket module: /usr/lib/<arch>/kamailio/modules/websocket.so.
const websocketModule = () =>
  fs.readdirSync('/usr/lib').some((arch) => exists(`/usr/lib/${arch}/kamailio/modules/websocket.so`));
const needs = [
  { pkg: 'chromium', ok: () => exists(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium') },
  { pkg: 'kamailio', ok: () => exists(process.env.KAMAILIO_PATH ?? '/usr/sbin/kamailio') },
  {
    pkg: 'kamailio-websocket-modules',
    ok: () => !!process.env.KAMAILIO_PATH || websocketModule(),
  },
  { pkg: 'dovecot-imapd', ok: () => exists('/usr/sbin/dovecot') },
];
const missing = needs.filter((n) => !n.ok()).map((n) => n.pkg);
if (missing.length === 0) process.exit(0);

const command = `apt-get install -y ${missing.join(' ')}`;
const root = typeof process.getuid === 'function' && process.getuid() === 0;
if (!root || !exists('/usr/bin/apt-get')) {
  console.error(`The end-to-end tests need Debian packages that are missing; run as root: ${command}`);
  process.exit(1);
}
console.log(`== installing from Debian: ${missing.join(' ')}`);
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
try {
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', ...missing], { stdio: ['ignore', 'ignore', 'inherit'], env });
} catch {
  console.error(`Installing the test packages failed; run as root: ${command}`);
  process.exit(1);
}
