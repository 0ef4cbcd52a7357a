import { PROFILE_STRINGS } from '@parley/contracts';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe.each(dialects)('profile picture (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  let png: Buffer;

  /** `POST /api/upload`, the existing pipeline the settings card uses. */
  async function upload(token: string, name: string, data: Buffer) {
    const form = new FormData();
    form.append('attachment[]', new Blob([new Uint8Array(data)], { type: 'image/png' }), name);
    const res = await fetch(`${s.url}/api/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { file: string[]; thumb: (string | null)[]; fileType: string[] };
  }
  const setPhoto = (token: string, file: unknown) => call('PUT', '/api/user/photo', { token, body: { file } });
  const photoOf = async (token: string) => (await call('POST', '/api/auth/check', { token })).body.photo;

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
    png = await sharp({ create: { width: 600, height: 400, channels: 3, background: '#e8590c' } })
      .png()
      .toBuffer();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('PROFILE-15 PROFILE-16 an uploaded image becomes the picture in the auth check, profiles and the agent list; null removes it', async () => {
    const admin = await signUpVia(call);
    const agent = await addUserVia(call, admin.token, { username: `pic-${uniq()}`, type: 'agent', name: 'Pia Pic' });
    expect(await photoOf(agent.token)).toBeNull();

    const up = await upload(agent.token, 'me.png', png);
    const r = await setPhoto(agent.token, up.file[0]);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ result: 'success', photo: up.thumb[0] });
    expect(up.thumb[0]).toMatch(/^\/files\/[A-Za-z0-9_-]+\/thumb\.jpg$/);

    expect(await photoOf(agent.token)).toBe(up.thumb[0]);
    // The admin's own picture is untouched.
    expect(await photoOf(admin.token)).toBeNull();
    const info = await call('GET', `/api/user/profile2/info?username=${agent.username}`, { token: admin.token });
    expect(info.body.data.photo).toBe(up.thumb[0]);
    const full = await call('GET', `/api/user/profile/data/info?username=${agent.username}`, { token: admin.token });
    expect(full.body.data.photo).toBe(up.thumb[0]);
    const agents = await call('GET', `/agent/${admin.token}`, { token: admin.token });
    expect(agents.body.data.find((a: { username: string }) => a.username === agent.username).photo).toBe(up.thumb[0]);
    // The online list (STATUS) shows it too.
    const online = await call('GET', '/status/get', { token: admin.token });
    expect(online.status, online.text).toBe(200);
    expect(JSON.stringify(online.body)).toContain(up.thumb[0]);
    // A colleague's browser can load it: a JPEG thumbnail served to members of the account.
    const img = await fetch(`${s.url}${up.thumb[0]}`, { headers: { authorization: `Bearer ${admin.token}` } });
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/jpeg');
    const meta = await sharp(Buffer.from(await img.arrayBuffer())).metadata();
    expect(Math.max(meta.width ?? 0, meta.height ?? 0)).toBeLessThanOrEqual(320);

    const removed = await setPhoto(agent.token, null);
    expect(removed.body).toEqual({ result: 'success', photo: null });
    expect(await photoOf(agent.token)).toBeNull();
  });

  it('PROFILE-16 a non-image, a file of another user or account, or a made-up URL is a clear 400 and changes nothing', async () => {
    const a = await signUpVia(call);
    const colleague = await addUserVia(call, a.token, { username: `col-${uniq()}`, type: 'agent' });
    const b = await signUpVia(call);
    const mine = await upload(a.token, 'me.png', png);
    expect((await setPhoto(a.token, mine.file[0])).status).toBe(200);

    const pdf = await upload(a.token, 'cv.png', Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n'));
    expect(pdf.fileType[0]).toBe('application/pdf');
    const text = await upload(a.token, 'photo.png', Buffer.from('not really a picture'));
    expect(text.fileType[0]).toBe('text/plain');
    for (const file of [pdf.file[0], text.file[0]]) {
      const r = await setPhoto(a.token, file);
      expect(r.status, r.text).toBe(400);
      expect(r.body.description).toBe(PROFILE_STRINGS.photoNotImage);
    }
    const theirs = await upload(colleague.token, 'col.png', png);
    const other = await upload(b.token, 'b.png', png);
    for (const file of [
      theirs.file[0],
      other.file[0],
      '/files/AAAAAAAAAAAAAAAAAAAAAAAA/x.png',
      'https://evil.example/x.png',
    ]) {
      const r = await setPhoto(a.token, file);
      expect(r.status, `${file} ${r.text}`).toBe(400);
      expect(r.body.description).toBe(PROFILE_STRINGS.photoNoUpload);
    }
    for (const body of [{}, { file: 42 }, { file: '' }]) {
      const r = await call('PUT', '/api/user/photo', { token: a.token, body });
      expect(r.status, r.text).toBe(400);
    }
    // Nothing changed: still the first picture; B's picture never was A's file.
    expect(await photoOf(a.token)).toBe(mine.thumb[0]);
    expect(await photoOf(colleague.token)).toBeNull();
    expect((await call('PUT', '/api/user/photo', { body: { file: null } })).status).toBe(401);
  });
});
