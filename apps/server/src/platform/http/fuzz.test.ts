import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { insertTicket } from '../../testing/messages.js';
import { startTestServer } from '../../testing/support.js';

/** Samples per route and role (3 in CI; FUZZ_RUNS=50 FUZZ_SEED=7 for a longer hunt). */
const RUNS = Number(process.env.FUZZ_RUNS ?? 3);
const SEED = Number(process.env.FUZZ_SEED ?? 42);

/** The parts of the OpenAPI document the fuzzer reads. */
interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  nullable?: boolean;
}
interface Operation {
  parameters?: { name: string; in: string; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

/**
 * Routes a fuzzed call must not reach: they end the caller's own session or change how it signs in, so the
 * calls after them would test nothing. Each has its own bad-input tests.
 */
const SKIP = new Set([
  'DELETE /api/user/signout',
  'DELETE /api/user/sessions/{id}',
  'POST /api/user/password',
  'POST /api/user/2fa/setup',
  'POST /api/user/2fa/enable',
  'POST /api/user/2fa/disable',
  'PUT /api/account/security',
  'PATCH /api/users/{id}',
  'POST /api/setup',
  'POST /api/signup',
]);

/** Strings that break naive code: markup, SQL, control characters, other scripts, emoji, the very long. */
const nasty = fc.constantFrom(
  '',
  ' ',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '../../etc/passwd',
  '\u0000',
  '\u202e',
  'Привет 你好 مرحبا',
  '😀👍🏽',
  'x'.repeat(5_000),
  '-1',
  '1e309',
  'null',
  '{}',
);

/** Values for a schema: mostly the right type with awkward values, sometimes a wrong type altogether. */
function arb(s: Schema | undefined, ids: number[], depth = 0): fc.Arbitrary<unknown> {
  const wrong = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), nasty, fc.constant([]), fc.constant({}));
  if (!s || depth > 3) return wrong;
  if (s.enum) return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...s.enum) }, { weight: 1, arbitrary: wrong });
  const alt = s.anyOf ?? s.oneOf;
  if (alt) return fc.oneof(...alt.map((a) => arb(a, ids, depth + 1)));
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  const right: fc.Arbitrary<unknown> =
    type === 'string'
      ? fc.oneof(nasty, fc.string({ maxLength: 40 }), fc.constantFrom(...ids.map(String)))
      : type === 'integer' || type === 'number'
        ? fc.oneof(
            fc.constantFrom(0, -1, 1, 2 ** 31, Number.MAX_SAFE_INTEGER, ...ids),
            fc.integer(),
            fc.double({ noNaN: true }),
          )
        : type === 'boolean'
          ? fc.boolean()
          : type === 'array'
            ? fc.array(arb(s.items, ids, depth + 1), { maxLength: 4 })
            : s.properties
              ? fc.record(
                  Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, arb(v, ids, depth + 1)])),
                  { requiredKeys: [] },
                )
              : fc.dictionary(fc.string({ maxLength: 8 }), nasty, { maxKeys: 3 });
  return fc.oneof({ weight: 5, arbitrary: right }, { weight: 1, arbitrary: wrong });
}

/**
 * A path with each `{param}` filled, encoded as a client would. An empty value would make another path (one
 * segment fewer, which the web app's pages answer), so it becomes '-'.
 */
function fillPath(path: string, values: Record<string, unknown>): string {
  return path.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(String(values[k] ?? 'x') || '-'));
}

/**
 * Every route of the OpenAPI document, with generated paths, queries and bodies, signed out, as an agent
 * and as an admin: never a 5xx, and never a byte of another account's data (that account's ticket, contact
 * and article carry a marker no generated value contains; their ids are among the ids tried).
 */
describe('fuzzing every route of /api/docs', () => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  const marker = `zz-other-account-${uniq()}`;
  const ids: number[] = [];
  const tokens: { role: string; token: string | undefined }[] = [];
  let doc: { paths: Record<string, Record<string, Operation>> };

  beforeAll(async () => {
    s = await startTestServer('sqlite');
    call = apiClient(s.url);
    // The other account, with data that carries the marker.
    const other = await signUpVia(call);
    ids.push(await insertTicket(s.handle.db, other.accountId, { channel: 'EMAIL', title: marker }));
    const contact = await call('POST', '/api/contacts', { token: other.token, body: { name: marker } });
    if (contact.body?.data?.id) ids.push(Number(contact.body.data.id));
    const article = await call('POST', '/api/kb/articles', {
      token: other.token,
      body: { type: 'kb', lang: 'en', title: marker, body: marker },
    });
    if (article.body?.data?.id) ids.push(Number(article.body.data.id));
    // This account: an admin and an agent.
    const admin = await signUpVia(call);
    const agent = await addUserVia(call, admin.token, { username: `fz-${uniq()}`, type: 'agent', name: 'Fay' });
    await insertTicket(s.handle.db, admin.accountId, { channel: 'EMAIL', title: 'Own ticket' });
    tokens.push({ role: 'signed out', token: undefined }, { role: 'agent', token: agent.token });
    tokens.push({ role: 'admin', token: admin.token });
    doc = (await call('GET', '/api/docs')).body;
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
  });

  it('GEN-02 no generated request gets a 5xx or another account data, as any role', async () => {
    const failures: string[] = [];
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
    );
    expect(operations.length).toBeGreaterThan(200);
    let calls = 0;
    const statuses: Record<number, number> = {};
    for (const { path, method, op } of operations) {
      if (SKIP.has(`${method} ${path}`)) continue;
      const params = op.parameters ?? [];
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      const input = fc.record({
        path: fc.record(
          Object.fromEntries(params.filter((p) => p.in === 'path').map((p) => [p.name, arb(p.schema, ids)])),
        ),
        query: fc.record(
          Object.fromEntries(params.filter((p) => p.in === 'query').map((p) => [p.name, arb(p.schema, ids)])),
          { requiredKeys: [] },
        ),
        body: arb(bodySchema ?? { type: 'object' }, ids),
      });
      const samples = fc.sample(input, { numRuns: RUNS, seed: SEED });
      for (const { role, token } of tokens)
        for (const x of samples) {
          const q = new URLSearchParams(
            Object.entries(x.query as Record<string, unknown>)
              .filter(([, v]) => v !== undefined)
              .map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
          ).toString();
          const url = `${fillPath(path, x.path as Record<string, unknown>)}${q ? `?${q}` : ''}`;
          const hasBody = method !== 'GET' && method !== 'DELETE';
          const r = await call(method, url, { token, ...(hasBody ? { raw: JSON.stringify(x.body) } : {}) });
          calls++;
          statuses[r.status] = (statuses[r.status] ?? 0) + 1;
          if (r.status >= 500)
            failures.push(`${r.status} ${method} ${url.slice(0, 120)} as ${role}: ${r.text.slice(0, 160)}`);
          if (r.text.includes(marker)) failures.push(`LEAK ${method} ${url.slice(0, 120)} as ${role}`);
        }
    }
    console.log(
      `fuzz: ${operations.length} operations, ${calls} calls, ${failures.length} failures; answers ${JSON.stringify(statuses)}`,
    );
    expect(failures, failures.join('\n')).toEqual([]);
  }, 300_000);
});
