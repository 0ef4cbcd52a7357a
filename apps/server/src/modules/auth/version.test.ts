import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config.js';
import { apiClient, signUpVia } from '../../testing/api.js';
import { startTestServer } from '../../testing/support.js';

const root = path.resolve(import.meta.dirname, '../../../../..');
const packageVersion = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version as string;

describe('SHELL-63 SHELL-64 the running version', () => {
  it('SHELL-64 APP_VERSION defaults to the root package.json version, APP_WHATS_NEW to nothing', () => {
    expect(packageVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(loadConfig({})).toMatchObject({ APP_VERSION: packageVersion, APP_WHATS_NEW: '' });
    expect(loadConfig({ APP_VERSION: '', APP_WHATS_NEW: '' }).APP_VERSION).toBe(packageVersion);
    expect(() => loadConfig({ APP_VERSION: 'v'.repeat(41) })).toThrow(/^Invalid configuration: APP_VERSION /);
  });

  describe('reported by the auth check', () => {
    let s: Awaited<ReturnType<typeof startTestServer>>;
    beforeAll(async () => {
      s = await startTestServer('sqlite', { APP_VERSION: '9.8.7-test', APP_WHATS_NEW: 'Announcements and statuses.' });
    });
    afterAll(async () => {
      await s?.stop();
    });

    it('SHELL-64 the auth check answers the configured version and its "What\'s new" text', async () => {
      const call = apiClient(s.url);
      const a = await signUpVia(call);
      const check = await call('POST', '/api/auth/check', { token: a.token });
      expect(check.status).toBe(200);
      expect(check.body.version).toEqual({ id: '9.8.7-test', description: 'Announcements and statuses.' });
    });
  });
});
