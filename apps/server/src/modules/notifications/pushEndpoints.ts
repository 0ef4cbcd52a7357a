import dns, { type LookupAddress } from 'node:dns';
import https from 'node:https';
import net from 'node:net';

/**
 * Where the server may send Web Push: the push services of the browsers, over https on the default port.
 * A subscription names its endpoint itself, so without this list any user could make the server connect to
 * any host and port (an internal service, the cloud metadata address).
 */
export const KNOWN_PUSH_HOSTS = [
  // Chrome, Edge on Android, Opera, Samsung Internet (Firebase Cloud Messaging).
  'fcm.googleapis.com',
  // Firefox.
  'updates.push.services.mozilla.com',
  'push.services.mozilla.com',
  // Safari.
  'web.push.apple.com',
] as const;
/** Host suffixes of push services with one name per region or tenant (Edge on Windows: WNS). */
export const KNOWN_PUSH_HOST_SUFFIXES = ['.notify.windows.com'] as const;

/** A `host` or `host:port` the operator allows besides the known services (PUSH_ALLOWED_HOSTS). */
export interface AllowedPushHost {
  /** As a URL spells it: lower case, IPv6 in brackets. */
  host: string;
  /** '' for https's default port 443. */
  port: string;
}

/**
 * How an endpoint may be reached: `known` (a browser's push service: its addresses are checked when
 * connecting), `allowed` (named by PUSH_ALLOWED_HOSTS: trusted as configured, loopback included), or null
 * when the server must not send there.
 */
export function pushEndpointKind(endpoint: string, allowed: readonly AllowedPushHost[]): 'known' | 'allowed' | null {
  let u: URL;
  try {
    u = new URL(endpoint);
  } catch {
    return null;
  }
  if (u.protocol !== 'https:' || u.username || u.password) return null;
  if (allowed.some((a) => a.host === u.hostname && a.port === u.port)) return 'allowed';
  if (u.port !== '') return null;
  const host = u.hostname;
  const known =
    (KNOWN_PUSH_HOSTS as readonly string[]).includes(host) ||
    KNOWN_PUSH_HOST_SUFFIXES.some((s) => host.endsWith(s) && host.length > s.length);
  return known ? 'known' : null;
}

/** Addresses the server never sends a push to: loopback, private, link-local, shared, reserved, multicast. */
const blocked = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(prefix, bits, 'ipv4');
for (const [prefix, bits] of [
  // Unspecified, loopback and the IPv4-compatible addresses.
  ['::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  // 6to4 embeds any IPv4 address, a private one included.
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(prefix, bits, 'ipv6');

/** The IPv4 address inside an IPv4-mapped or NAT64 IPv6 address (`::ffff:10.0.0.1`, `64:ff9b::a00:1`). */
function embeddedIpv4(address: string): string | null {
  const m = /^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!m) return null;
  if (m[1]) return m[1];
  const hi = Number.parseInt(m[2]!, 16);
  const lo = Number.parseInt(m[3]!, 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/** Whether an IP address is one a push must never reach (anything not public unicast). */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const v4 = embeddedIpv4(address);
  if (v4) return blocked.check(v4, 'ipv4');
  return blocked.check(address, 'ipv6');
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for sockets to push services: resolves the name as usual and fails when any address it gives is
 * private. The socket connects to the address checked here, so a name that resolves to a public address
 * when registered and to an internal one when sending (DNS rebinding) is still refused.
 */
export function publicOnlyLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '');
    const list = addresses as LookupAddress[];
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad || list.length === 0) {
      const refused: NodeJS.ErrnoException = new Error(
        `${hostname} resolves to ${bad?.address ?? 'no address'}, which is not a public address.`,
      );
      refused.code = 'EPUSHADDRESS';
      return callback(refused, '');
    }
    if (options.all) return callback(null, list);
    const first = list[0]!;
    callback(null, first.address, first.family);
  });
}

/** The agent every push to a known push service goes through: it connects to public addresses only. */
export const publicPushAgent = new https.Agent({ keepAlive: true, lookup: publicOnlyLookup as never });
