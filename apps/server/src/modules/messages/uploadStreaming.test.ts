import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { ErrorCode } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Call, type SignedUp, signUpVia } from '../../testing/api.js';
import { waitFor } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { incomingDir, UPLOAD_BUSY } from './multipart.js';
import { NAME_URL_MAX } from './uploads.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
const MB = 1024 * 1024;

// A full collection before each reading of the heap: what is left is what the server still holds.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const held = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
/** The memory this process holds after full collections (twice: freed array buffers are swept by the next). */
const heldNow = () => {
  gc();
  gc();
  return held();
};

interface Part {
  field: string;
  /** A file part of `size` zero bytes (made as it is sent), or a text field of `value`. */
  filename?: string;
  size?: number;
  value?: string;
}

/** A multipart body made while it is sent, 64 kB at a time: the client never holds a large file. */
function* multipartPieces(boundary: string, parts: Part[]): Generator<Buffer> {
  const chunk = 64 * 1024;
  for (const p of parts) {
    const disposition =
      p.filename === undefined
        ? `form-data; name="${p.field}"`
        : `form-data; name="${p.field}"; filename="${p.filename}"`;
    const type = p.filename === undefined ? '' : 'Content-Type: application/octet-stream\r\n';
    yield Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`);
    if (p.filename === undefined) yield Buffer.from(p.value ?? '');
    else for (let left = p.size ?? 0; left > 0; left -= chunk) yield Buffer.alloc(Math.min(chunk, left));
    yield Buffer.from('\r\n');
  }
  yield Buffer.from(`--${boundary}--\r\n`);
}

describe.each(dialects)('uploads streamed to disk, capped at once (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  let a: SignedUp;
  const db = () => s.handle.db;
  const incoming = () =>
    fs.existsSync(incomingDir(s.config.DATA_DIR)) ? fs.readdirSync(incomingDir(s.config.DATA_DIR)) : [];
  const accountFiles = (accountId: number) => {
    const dir = path.join(s.config.DATA_DIR, 'uploads', String(accountId));
    return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  };

  beforeAll(async () => {
    s = await startTestServer(dialect, { UPLOADS_PER_ACCOUNT: '2', UPLOADS_PER_PROCESS: '3' });
    call = apiClient(s.url);
    a = await signUpVia(call);
    await db().updateTable('accounts').set({ plan: 4 }).where('id', '=', a.accountId).execute();
  });
  afterAll(async () => {
    await s?.stop();
  });

  /** Sends a multipart request as the server takes it (waiting for the socket to drain), and its answer. */
  const send = (token: string, parts: Part[], route = '/api/upload') =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      const boundary = `parley${randomBytes(8).toString('hex')}`;
      const req = http.request(`${s.url}${route}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      req.on('error', reject);
      req.on('response', (res) => {
        let text = '';
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      const pieces = multipartPieces(boundary, parts);
      const write = () => {
        for (let next = pieces.next(); !next.done; next = pieces.next())
          if (!req.write(next.value)) return void req.once('drain', write);
        req.end();
      };
      write();
    });

  /**
   * A multipart request written part by part as the server takes it (each write waits for the socket to
   * drain): the test can stop halfway through a file and look at the server.
   */
  const openUpload = (token: string, route = '/api/upload') => {
    const boundary = `parley${randomBytes(8).toString('hex')}`;
    const req = http.request(`${s.url}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    const answer = new Promise<{ status: number; body: any }>((resolve) => {
      req.on('response', (res) => {
        let text = '';
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on('error', () => resolve({ status: 0, body: null }));
    });
    const write = (piece: string | Buffer) =>
      new Promise<void>((resolve) => {
        req.write(piece, () => resolve());
      });
    let parts = 0;
    return {
      answer,
      /** Begins a file part. */
      file: (field: string, filename: string) =>
        write(
          `${parts++ ? '\r\n' : ''}--${boundary}\r\nContent-Disposition: form-data; name="${field}"; ` +
            `filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        ),
      /** `bytes` zero bytes of the current file, 64 kB at a time. */
      async zeros(bytes: number) {
        for (let left = bytes; left > 0; left -= 64 * 1024) await write(Buffer.alloc(Math.min(64 * 1024, left)));
      },
      finish: () => req.end(`\r\n--${boundary}--\r\n`),
      abort: () => req.destroy(),
    };
  };

  it('MSG-35 a large file is streamed to disk: halfway through 24 MB the server holds nothing like what it got', async () => {
    const base = heldNow();
    const up = openUpload(a.token);
    await up.file('attachment[]', 'big.bin');
    await up.zeros(16 * MB);
    // What the socket still holds is not in this process's memory: wait until the server has written most.
    const size = () =>
      incoming().reduce((n, f) => n + fs.statSync(path.join(incomingDir(s.config.DATA_DIR), f)).size, 0);
    await waitFor(() => size() >= 12 * MB, 'most of the file written', 3000).catch(() => {});
    const halfway = heldNow() - base;
    await up.zeros(8 * MB);
    up.finish();
    const result = await up.answer;
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    expect(result.body.size).toEqual([24 * MB]);
    expect(result.body.fileType).toEqual(['application/octet-stream']);
    // Read into memory, the 16 MB received were all held.
    expect(halfway).toBeLessThan(6 * MB);
    const key = String(result.body.file[0]).split('/')[2]!;
    expect(fs.statSync(path.join(s.config.DATA_DIR, 'uploads', String(a.accountId), key)).size).toBe(24 * MB);
    await waitFor(() => incoming().length === 0, 'the incoming folder emptied');
  }, 60_000);

  it('MSG-35 a part under a field name the route does not read is neither stored, written nor buffered', async () => {
    const before = accountFiles(a.accountId).length;
    const base = heldNow();
    const up = openUpload(a.token);
    await up.file('junk', 'junk.bin');
    await up.zeros(16 * MB);
    expect(incoming()).toEqual([]);
    await up.zeros(4 * MB);
    await up.file('attachment[]', 'small.txt');
    await up.zeros(10);
    // The server writes the next part's file only once it has read through the 20 MB before it.
    await waitFor(() => incoming().length === 1, 'the part after the junk to be written');
    const halfway = heldNow() - base;
    expect(incoming()).toHaveLength(1);
    up.finish();
    const result = await up.answer;
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    expect(result.body.fileName).toEqual(['small.txt']);
    expect(halfway).toBeLessThan(6 * MB);
    expect(accountFiles(a.accountId)).toHaveLength(before + 1);
    const rows = await db().selectFrom('uploads').select('name').where('account_id', '=', a.accountId).execute();
    expect(rows.map((r) => r.name)).not.toContain('junk.bin');
    await waitFor(() => incoming().length === 0, 'the incoming folder emptied');
  }, 60_000);

  /** An upload whose file has begun to arrive, that waits for `finish()` or `abort()`. */
  const holdUpload = (token: string) => {
    const up = openUpload(token);
    void up.file('attachment[]', 'slow.bin').then(() => up.zeros(64 * 1024));
    return up;
  };

  it('MSG-35 uploads at once are capped per account and per process: past either, 429 and nothing stored', async () => {
    const b = await signUpVia(call);
    const c = await signUpVia(call);
    const rowsOf = async (accountId: number) =>
      (await db().selectFrom('uploads').select('id').where('account_id', '=', accountId).execute()).length;
    const before = await rowsOf(a.accountId);
    const first = holdUpload(a.token);
    const second = holdUpload(a.token);
    await waitFor(() => incoming().length === 2, 'two uploads reading');

    // The account's cap (2 here): a third upload of a, and a voice upload of a, are refused at once.
    const third = await send(a.token, [{ field: 'attachment[]', filename: 'three.txt', size: 10 }]);
    expect(third.status).toBe(429);
    expect(third.body).toEqual({ result: 'failed', code: ErrorCode.rateLimited, description: UPLOAD_BUSY.account });
    const voice = await send(a.token, [{ field: 'attachment', filename: 'v.wav', size: 10 }], '/api/upload/voice');
    expect(voice.status).toBe(429);
    expect(await rowsOf(a.accountId)).toBe(before);

    // The process's cap (3 here): b takes the last place; c is told the server is busy.
    const fromB = holdUpload(b.token);
    await waitFor(() => incoming().length === 3, 'three uploads reading');
    const fromC = await send(c.token, [{ field: 'attachment[]', filename: 'c.txt', size: 10 }]);
    expect(fromC.status).toBe(429);
    expect(fromC.body.description).toBe(UPLOAD_BUSY.server);
    expect(await rowsOf(c.accountId)).toBe(0);

    // A finished upload gives its place back; so does one whose client went away.
    first.finish();
    expect((await first.answer).status).toBe(200);
    second.abort();
    fromB.finish();
    expect((await fromB.answer).status).toBe(200);
    await waitFor(() => incoming().length === 0, 'the aborted upload removed');
    // The places come back just after the files are removed; a refused try stores nothing, so the first
    // upload tries until it is let in.
    const after = () => [{ field: 'attachment[]', filename: 'after.txt', size: 10 }];
    await waitFor(async () => (await send(a.token, after())).status === 200, 'a place given back');
    for (const who of [a, c]) {
      const ok = await send(who.token, after());
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    }
    expect(await rowsOf(a.accountId)).toBe(before + 3);
  }, 60_000);

  it('MSG-35 text fields past 1 MB together are refused with 413, nothing stored', async () => {
    const rows = async () =>
      (await db().selectFrom('uploads').select('id').where('account_id', '=', a.accountId).execute()).length;
    const before = await rows();
    const r = await send(a.token, [
      { field: 'note', value: 'x'.repeat(600 * 1024) },
      { field: 'note', value: 'y'.repeat(600 * 1024) },
      { field: 'attachment[]', filename: 'a.txt', size: 10 },
    ]);
    expect(r.status).toBe(413);
    expect(r.body).toEqual({
      result: 'failed',
      code: ErrorCode.tooLarge,
      description: 'The form fields are too long.',
    });
    expect(await rows()).toBe(before);
  });

  it('MSG-35 a 200-character name is stored short enough to download, its extension kept', async () => {
    const long = `${'n'.repeat(196)}.pdf`;
    const up = await send(a.token, [{ field: 'attachment[]', filename: long, size: 10 }]);
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    const got = await fetch(`${s.url}${up.body.file[0]}`, { headers: { authorization: `Bearer ${a.token}` } });
    expect(got.status).toBe(200);
    expect((await got.arrayBuffer()).byteLength).toBe(10);
    const name: string = up.body.fileName[0];
    expect(name.endsWith('.pdf')).toBe(true);
    expect(encodeURIComponent(name).length).toBeLessThanOrEqual(NAME_URL_MAX);
    expect(long.startsWith(name.slice(0, -4))).toBe(true);
    // Many-byte characters count as their URL writes them.
    const wide = `${'日本'.repeat(100)}.txt`;
    const up2 = await send(a.token, [{ field: 'attachment[]', filename: wide, size: 10 }]);
    expect(up2.status).toBe(200);
    expect(up2.body.fileName[0]).toMatch(/^(日本)+日?\.txt$/);
    expect(encodeURIComponent(up2.body.fileName[0]).length).toBeLessThanOrEqual(NAME_URL_MAX);
    const got2 = await fetch(`${s.url}${up2.body.file[0]}`, { headers: { authorization: `Bearer ${a.token}` } });
    expect(got2.status).toBe(200);
  });

  it('MSG-35 bidirectional and other invisible control characters are removed from a name', async () => {
    const up = await send(a.token, [
      { field: 'attachment[]', filename: 'invoice\u202Efdp.exe', size: 10 },
      { field: 'attachment[]', filename: '\u2066a\u200Eb\u200F\u202Ac\u2069\u0085d\u0007.txt', size: 10 },
    ]);
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect(up.body.fileName).toEqual(['invoicefdp.exe', 'abcd.txt']);
    const rows = await db()
      .selectFrom('uploads')
      .select('name')
      .where('account_id', '=', a.accountId)
      .where('name', 'in', ['invoicefdp.exe', 'abcd.txt'])
      .execute();
    expect(rows).toHaveLength(2);
  });
});
