import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../platform/config.js';
import { startPushEndpoint } from '../../testing/pushEndpoint.js';
import { isPrivateAddress, publicOnlyLookup, publicPushAgent, pushEndpointKind } from './pushEndpoints.js';

describe('Web Push endpoints', () => {
  it('NOTIF-35 only https endpoints of the known push services, or of PUSH_ALLOWED_HOSTS, may be sent to', () => {
    const allowed = loadConfig({ PUSH_ALLOWED_HOSTS: '127.0.0.1:8443, Push.Example.com,[::1]:9' }).PUSH_ALLOWED_HOSTS;
    expect(allowed).toEqual([
      { host: '127.0.0.1', port: '8443' },
      { host: 'push.example.com', port: '' },
      { host: '[::1]', port: '9' },
    ]);
    const cases: [string, 'known' | 'allowed' | null][] = [
      ['https://fcm.googleapis.com/fcm/send/x', 'known'],
      ['https://FCM.googleapis.com:443/fcm/send/x', 'known'],
      ['https://updates.push.services.mozilla.com/wpush/v2/x', 'known'],
      ['https://push.services.mozilla.com/wpush/v2/x', 'known'],
      ['https://web.push.apple.com/x', 'known'],
      ['https://db5p.notify.windows.com/w/?token=x', 'known'],
      ['https://notify.windows.com/w/', null],
      ['https://.notify.windows.com/w/', null],
      ['https://evilnotify.windows.com/w/', null],
      ['http://fcm.googleapis.com/fcm/send/x', null],
      ['https://fcm.googleapis.com:8443/fcm/send/x', null],
      ['https://a:b@fcm.googleapis.com/fcm/send/x', null],
      ['https://fcm.googleapis.com.example.net/x', null],
      ['https://127.0.0.1:8443/push', 'allowed'],
      ['https://127.0.0.1/push', null],
      ['https://127.0.0.1:8444/push', null],
      ['https://push.example.com/x', 'allowed'],
      ['https://push.example.com:8443/x', null],
      ['https://[::1]:9/x', 'allowed'],
      ['https://169.254.169.254/latest', null],
      ['not a url', null],
    ];
    for (const [endpoint, kind] of cases) expect(pushEndpointKind(endpoint, allowed), endpoint).toBe(kind);
    expect(pushEndpointKind('https://127.0.0.1:8443/push', [])).toBeNull();
  });

  it.each(['http://x', 'a/b', 'host:port', 'user@host'])('a bad PUSH_ALLOWED_HOSTS (%s) stops start-up', (v) => {
    expect(() => loadConfig({ PUSH_ALLOWED_HOSTS: v })).toThrow(ConfigError);
    expect(() => loadConfig({ PUSH_ALLOWED_HOSTS: v })).toThrow(/^Invalid configuration: PUSH_ALLOWED_HOSTS /);
  });

  it('NOTIF-35 loopback, private, link-local, shared and reserved addresses are private; public ones are not', () => {
    for (const ip of [
      '127.0.0.1',
      '127.1.2.3',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.10',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::a00:1',
      'fe80::1',
      'fd12:3456::1',
      'ff02::1',
      'not an address',
    ])
      expect(isPrivateAddress(ip), ip).toBe(true);
    for (const ip of ['8.8.8.8', '142.250.74.106', '172.32.0.1', '2a00:1450:4001:80b::200a', '::ffff:8.8.8.8'])
      expect(isPrivateAddress(ip), ip).toBe(false);
  });

  describe('sending (DNS rebinding)', () => {
    let push: Awaited<ReturnType<typeof startPushEndpoint>>;
    beforeAll(async () => {
      push = await startPushEndpoint();
    });
    afterAll(async () => {
      await push?.close();
    });

    const lookup = (host: string) =>
      new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
        publicOnlyLookup(host, {}, (err, address) => resolve({ err, address })),
      );

    it('NOTIF-35 a name that resolves to a private address is refused when connecting; a public one resolves', async () => {
      const local = await lookup('localhost');
      expect(local.err?.code).toBe('EPUSHADDRESS');
      expect(local.err?.message).toMatch(/^localhost resolves to .+, which is not a public address\.$/);
      expect(await lookup('8.8.8.8')).toEqual({ err: null, address: '8.8.8.8' });
    });

    it('NOTIF-35 the agent of pushes to known services never connects to a loopback push endpoint', async () => {
      const port = new URL(push.subscription('x').endpoint).port;
      const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
        const req = https.request(
          { hostname: 'localhost', port, path: '/push/rebound', method: 'POST', agent: publicPushAgent },
          () => resolve(null),
        );
        req.on('error', (e) => resolve(e));
        req.end('x');
      });
      expect(err?.code).toBe('EPUSHADDRESS');
      expect(push.received).toHaveLength(0);
    });
  });
});
