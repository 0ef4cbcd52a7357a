import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

/** What the next ID token gets wrong, for the refusal tests; `none` issues a good one. */
export type OidcFault = 'none' | 'wrongAudience' | 'expired' | 'badNonce' | 'forgedSignature' | 'wrongIssuer';

export interface OidcUser {
  sub: string;
  email: string;
  name: string;
  email_verified?: boolean;
}

/**
 * A loopback OpenID Connect provider speaking the real shapes: discovery, JWKS, an authorization endpoint
 * that signs in `user` at once (no login page) and redirects back with a code, a token endpoint (client
 * secret by HTTP Basic, PKCE S256 checked, codes single use) answering an RS256 ID token, user info (the
 * e-mail is only there, as many providers do), and an end-session endpoint. `fault` makes the next ID
 * token wrong in one way.
 */
export async function startOidcIdp(opts: { clientId: string; clientSecret: string }) {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const forger = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key', use: 'sig', alg: 'RS256' };
  const codes = new Map<string, { user: OidcUser; nonce: string; challenge: string; redirect: string }>();
  const access = new Map<string, OidcUser>();
  const state = {
    user: { sub: 'u-1', email: 'ann@idp.example', name: 'Ann Example' } as OidcUser,
    fault: 'none' as OidcFault,
    /** Every request path, for assertions. */
    seen: [] as string[],
    endSessions: [] as string[],
  };
  let issuer = '';

  const idToken = async (user: OidcUser, nonce: string) => {
    const f = state.fault;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ nonce: f === 'badNonce' ? 'not-the-nonce' : nonce, name: user.name })
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
      .setIssuer(f === 'wrongIssuer' ? `${issuer}/other` : issuer)
      .setSubject(user.sub)
      .setAudience(f === 'wrongAudience' ? 'someone-else' : opts.clientId)
      .setIssuedAt(f === 'expired' ? now - 7200 : now)
      .setExpirationTime(f === 'expired' ? now - 3600 : now + 300)
      .sign(f === 'forgedSignature' ? forger.privateKey : privateKey);
  };
  const json = (res: http.ServerResponse, status: number, body: unknown) =>
    res
      .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      .end(JSON.stringify(body));

  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', async () => {
      const u = new URL(req.url ?? '/', issuer);
      state.seen.push(u.pathname);
      try {
        if (u.pathname === '/.well-known/openid-configuration')
          return json(res, 200, {
            issuer,
            authorization_endpoint: `${issuer}/authorize`,
            token_endpoint: `${issuer}/token`,
            userinfo_endpoint: `${issuer}/userinfo`,
            jwks_uri: `${issuer}/jwks`,
            end_session_endpoint: `${issuer}/logout`,
            response_types_supported: ['code'],
            subject_types_supported: ['public'],
            id_token_signing_alg_values_supported: ['RS256'],
            code_challenge_methods_supported: ['S256'],
            token_endpoint_auth_methods_supported: ['client_secret_basic'],
          });
        if (u.pathname === '/jwks') return json(res, 200, { keys: [jwk] });
        if (u.pathname === '/authorize') {
          const q = u.searchParams;
          const redirect = q.get('redirect_uri') ?? '';
          if (q.get('client_id') !== opts.clientId || q.get('response_type') !== 'code' || !redirect)
            return json(res, 400, { error: 'invalid_request' });
          if (q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge'))
            return json(res, 400, { error: 'invalid_request', error_description: 'PKCE required' });
          const code = randomBytes(16).toString('base64url');
          codes.set(code, {
            user: state.user,
            nonce: q.get('nonce') ?? '',
            challenge: q.get('code_challenge')!,
            redirect,
          });
          const back = new URL(redirect);
          back.searchParams.set('code', code);
          back.searchParams.set('state', q.get('state') ?? '');
          back.searchParams.set('iss', issuer);
          res.writeHead(302, { location: back.href }).end();
          return;
        }
        if (u.pathname === '/token' && req.method === 'POST') {
          const basic = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
          const [id, secret] = basic.split(':').map((s) => decodeURIComponent(s.replace(/\+/g, ' ')));
          if (id !== opts.clientId || secret !== opts.clientSecret) return json(res, 401, { error: 'invalid_client' });
          const p = new URLSearchParams(body);
          const c = codes.get(p.get('code') ?? '');
          codes.delete(p.get('code') ?? '');
          if (!c || p.get('grant_type') !== 'authorization_code' || p.get('redirect_uri') !== c.redirect)
            return json(res, 400, { error: 'invalid_grant' });
          const challenge = createHash('sha256')
            .update(p.get('code_verifier') ?? '')
            .digest('base64url');
          if (challenge !== c.challenge) return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE' });
          const at = randomBytes(16).toString('base64url');
          access.set(at, c.user);
          return json(res, 200, {
            access_token: at,
            token_type: 'Bearer',
            expires_in: 300,
            id_token: await idToken(c.user, c.nonce),
          });
        }
        if (u.pathname === '/userinfo') {
          const user = access.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
          if (!user) return json(res, 401, { error: 'invalid_token' });
          return json(res, 200, user);
        }
        if (u.pathname === '/logout') {
          state.endSessions.push(u.search);
          const after = u.searchParams.get('post_logout_redirect_uri');
          if (after) res.writeHead(302, { location: after }).end();
          else res.writeHead(200, { 'content-type': 'text/html' }).end('<p>Signed out of the test provider.</p>');
          return;
        }
        json(res, 404, { error: 'not_found' });
      } catch (err) {
        json(res, 500, { error: 'server_error', error_description: (err as Error).message });
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  issuer = `http://127.0.0.1:${port}`;
  return {
    issuer,
    host: `127.0.0.1:${port}`,
    state,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
