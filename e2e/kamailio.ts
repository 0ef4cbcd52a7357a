import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './support.js';

export const KAMAILIO = process.env.KAMAILIO_PATH ?? '/usr/sbin/kamailio';

/**
 * A real SIP registrar speaking SIP over WebSocket on loopback (Debian's Kamailio with its websocket
 * module, configured as ../shared/design/RECIPES.md describes): REGISTER is saved without authentication,
 * everything else is answered 404. Enough for a softphone line to register and for its socket to drop.
 */
function modules(): string {
  const found = fs
    .readdirSync('/usr/lib')
    .map((d) => path.join('/usr/lib', d, 'kamailio/modules/'))
    .find((d) => fs.existsSync(path.join(d, 'websocket.so')));
  if (!found)
    throw new Error(
      "Kamailio's websocket module is missing. Install it with: apt-get install -y kamailio-websocket-modules",
    );
  return found;
}

/**
 * With `calls`, a proxy too (RECIPES.md): INVITEs to a registered line are looked up and relayed, record-routed,
 * and in-dialog requests follow the route; WebSocket contacts get an alias so requests can reach them back.
 */
const CALL_ROUTE = `
request_route {
  if (!mf_process_maxfwd_header("10")) { sl_send_reply("483", "Too Many Hops"); exit; }
  force_rport();
  if (nat_uac_test("64")) {
    if (is_method("REGISTER")) fix_nated_register(); else add_contact_alias();
  }
  if (has_totag()) {
    if (loose_route()) { handle_ruri_alias(); t_relay(); exit; }
    if (is_method("ACK")) { if (t_check_trans()) t_relay(); exit; }
    sl_send_reply("404", "Not here");
    exit;
  }
  if (is_method("CANCEL")) { if (t_check_trans()) t_relay(); exit; }
  if (is_method("REGISTER")) { if (!save("location")) sl_reply_error(); exit; }
  if (is_method("OPTIONS")) { sl_send_reply("200", "OK"); exit; }
  if (is_method("INVITE")) record_route();
  if (!lookup("location")) { sl_send_reply("404", "Not Found"); exit; }
  t_on_reply("NATREPLY");
  t_relay();
}

onreply_route[NATREPLY] {
  if (nat_uac_test("64")) add_contact_alias();
}
`;

const REGISTRAR_ROUTE = `
request_route {
  if (!mf_process_maxfwd_header("10")) { sl_send_reply("483", "Too Many Hops"); exit; }
  force_rport();
  if (is_method("REGISTER")) {
    if (nat_uac_test("64")) fix_nated_register();
    if (!save("location")) sl_reply_error();
    exit;
  }
  if (is_method("OPTIONS")) { sl_send_reply("200", "OK"); exit; }
  sl_send_reply("404", "Not here");
}
`;

function config(wsPort: number, udpPort: number, calls: boolean): string {
  return `#!KAMAILIO
debug=1
log_stderror=yes
children=1
tcp_children=1
auto_aliases=no
listen=udp:127.0.0.1:${udpPort}
listen=tcp:127.0.0.1:${wsPort}
tcp_accept_no_cl=yes
mpath="${modules()}"
loadmodule "kex.so"
loadmodule "corex.so"
loadmodule "tm.so"
loadmodule "sl.so"
loadmodule "pv.so"
loadmodule "maxfwd.so"
loadmodule "textops.so"
loadmodule "siputils.so"
loadmodule "sanity.so"
loadmodule "usrloc.so"
loadmodule "registrar.so"
loadmodule "nathelper.so"
loadmodule "xhttp.so"
loadmodule "websocket.so"
${calls ? 'loadmodule "rr.so"\n' : ''}modparam("nathelper|registrar", "received_avp", "$avp(RECEIVED)")
${calls ? CALL_ROUTE : REGISTRAR_ROUTE}
event_route[xhttp:request] {
  if ($hdr(Upgrade) =~ "websocket" && $hdr(Connection) =~ "Upgrade" && $rm =~ "GET") {
    if (ws_handle_handshake()) exit;
  }
  xhttp_reply("404", "Not Found", "", "");
}
`;
}

export interface RunningKamailio {
  /** ws://127.0.0.1:port, the address softphones register at. */
  wsUrl: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  logs(): string;
}

async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/**
 * Kamailio in the foreground (-DD) on free loopback ports; stop() and start() again keep the address. With
 * `calls`, it also relays calls between registered lines.
 */
export async function kamailio(opts: { calls?: boolean } = {}): Promise<RunningKamailio> {
  if (!fs.existsSync(KAMAILIO)) {
    throw new Error(
      `Kamailio is missing at ${KAMAILIO}. Install it with: apt-get install -y kamailio kamailio-websocket-modules`,
    );
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-kam-'));
  const [wsPort, udpPort] = [await freePort(), await freePort()];
  const cfg = path.join(dir, 'kamailio.cfg');
  fs.writeFileSync(cfg, config(wsPort, udpPort, opts.calls ?? false));
  let out = '';
  let child: ChildProcess | null = null;

  async function start(): Promise<void> {
    const proc = spawn(KAMAILIO, ['-DD', '-E', '-f', cfg, '-Y', dir, '-P', path.join(dir, 'kam.pid'), '-m', '32'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (d: Buffer) => {
      out += d.toString();
    };
    proc.stdout?.on('data', collect);
    proc.stderr?.on('data', collect);
    child = proc;
    const deadline = Date.now() + 15_000;
    while (!(await listening(wsPort))) {
      if (proc.exitCode !== null) throw new Error(`kamailio exited early:\n${out}`);
      if (Date.now() > deadline) throw new Error(`kamailio did not listen on ${wsPort}:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async function stop(): Promise<void> {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
    while (await listening(wsPort)) await new Promise((r) => setTimeout(r, 100));
  }

  await start();
  return { wsUrl: `ws://127.0.0.1:${wsPort}`, start, stop, logs: () => out };
}
