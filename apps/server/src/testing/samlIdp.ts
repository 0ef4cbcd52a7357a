import { execFileSync } from 'node:child_process';
import { createSign, createVerify, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';

/** An RSA key and a self-signed certificate for it, made with openssl at test time. */
export function rsaCertificate(cn = 'Parley test IdP'): { key: string; cert: string; certB64: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-saml-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${cn}`,
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  const cert = fs.readFileSync(certFile, 'utf8');
  const key = fs.readFileSync(keyFile, 'utf8');
  fs.rmSync(dir, { recursive: true, force: true });
  return { key, cert, certB64: cert.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, '') };
}

/** What the next response gets wrong, for the refusal tests; `none` issues a good one. */
export type SamlFault = 'none' | 'forged' | 'expired' | 'wrongAudience' | 'tampered' | 'unsigned';

export interface SamlUser {
  nameId: string;
  email: string;
  name: string;
}

/** The AuthnRequest an HTTP-Redirect `SAMLRequest` carries: its id and where the answer goes. */
export function readAuthnRequest(location: string): { id: string; acs: string; issuer: string } {
  const u = new URL(location);
  const xml = inflateRawSync(Buffer.from(u.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
  return {
    id: /\bID="([^"]+)"/.exec(xml)?.[1] ?? '',
    acs: /AssertionConsumerServiceURL="([^"]+)"/.exec(xml)?.[1] ?? '',
    issuer: /<(?:\w+:)?Issuer[^>]*>([^<]+)</.exec(xml)?.[1] ?? '',
  };
}

/** What the IdP's SLO URL received from the SP: a LogoutRequest, and whether its query signature held. */
export interface SpLogoutRequest {
  id: string;
  issuer: string;
  nameId: string;
  sessionIndex: string;
  destination: string;
  signed: boolean;
  /** Checked against `state.spCert` when the test gave one; null when it did not. */
  signatureValid: boolean | null;
}

/** What an IdP-initiated LogoutRequest gets wrong, for the refusal tests. */
export type LogoutFault = 'none' | 'unsigned' | 'forged' | 'tampered';

const SIG_ALG = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
/** The HTTP-Redirect binding's query signature: over `SAMLRequest|SAMLResponse=..[&RelayState=..]&SigAlg=..` as sent. */
const signQuery = (key: string, signed: string) => createSign('RSA-SHA256').update(signed).sign(key, 'base64');
const deflate64 = (xml: string) => deflateRawSync(Buffer.from(xml, 'utf8')).toString('base64');

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

/**
 * A loopback SAML 2.0 identity provider: its metadata (an EntityDescriptor with the signing certificate and
 * an HTTP-Redirect sign-in URL), a sign-in URL that signs in `user` at once and answers the browser with the
 * auto-submitting HTTP-POST form, and `response()` for tests that post by hand. Assertions are signed
 * (RSA-SHA256, exclusive c14n) with a key made at start; `forged` signs with another one.
 */
export async function startSamlIdp() {
  const signing = rsaCertificate();
  const forger = rsaCertificate('Not the IdP');
  let base = '';
  const state = {
    user: { nameId: 'bob@idp.example', email: 'bob@idp.example', name: 'Bob Example' } as SamlUser,
    /** The SP's signing certificate (PEM): LogoutRequests from the SP are checked against it when given. */
    spCert: '' as string,
    /** LogoutRequests the SP sent to the SLO URL, oldest first. */
    logoutRequests: [] as SpLogoutRequest[],
  };

  /** A base64 SAML Response for this request, signed, with one fault when asked. */
  const response = (o: { inResponseTo: string; acs: string; audience: string; fault?: SamlFault; user?: SamlUser }) => {
    const fault = o.fault ?? 'none';
    const user = o.user ?? state.user;
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const notOnOrAfter = fault === 'expired' ? iso(now - 3600_000) : iso(now + 300_000);
    const notBefore = fault === 'expired' ? iso(now - 7200_000) : iso(now - 60_000);
    const assertionId = `_a${randomBytes(16).toString('hex')}`;
    const audience = fault === 'wrongAudience' ? 'https://someone-else.example/sp' : o.audience;
    const assertion =
      `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${assertionId}" Version="2.0" IssueInstant="${iso(now)}">` +
      `<saml:Issuer>${esc(base)}</saml:Issuer>` +
      `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${esc(user.nameId)}</saml:NameID>` +
      `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData InResponseTo="${esc(o.inResponseTo)}" NotOnOrAfter="${notOnOrAfter}" Recipient="${esc(o.acs)}"/></saml:SubjectConfirmation></saml:Subject>` +
      `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${notOnOrAfter}"><saml:AudienceRestriction><saml:Audience>${esc(audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
      `<saml:AuthnStatement AuthnInstant="${iso(now)}" SessionIndex="${assertionId}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
      `<saml:AttributeStatement>` +
      `<saml:Attribute Name="email"><saml:AttributeValue>${esc(user.email)}</saml:AttributeValue></saml:Attribute>` +
      `<saml:Attribute Name="displayName"><saml:AttributeValue>${esc(user.name)}</saml:AttributeValue></saml:Attribute>` +
      `</saml:AttributeStatement></saml:Assertion>`;
    const xml =
      `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${randomBytes(16).toString('hex')}" Version="2.0" IssueInstant="${iso(now)}" Destination="${esc(o.acs)}" InResponseTo="${esc(o.inResponseTo)}">` +
      `<saml:Issuer>${esc(base)}</saml:Issuer>` +
      `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
      `${assertion}</samlp:Response>`;
    let out = xml;
    if (fault !== 'unsigned') {
      const key = fault === 'forged' ? forger : signing;
      const sig = new SignedXml({
        privateKey: key.key,
        publicCert: key.cert,
        signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
        canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
      });
      sig.addReference({
        xpath: "//*[local-name(.)='Assertion']",
        transforms: [
          'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
          'http://www.w3.org/2001/10/xml-exc-c14n#',
        ],
        digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
      });
      sig.computeSignature(xml, {
        location: { reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: 'after' },
      });
      out = sig.getSignedXml();
    }
    // Changed after signing: the signature no longer matches.
    if (fault === 'tampered') out = out.replace(esc(user.email), 'mallory@idp.example');
    return Buffer.from(out).toString('base64');
  };

  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', base);
    if (u.pathname === '/metadata') {
      res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(metadata());
      return;
    }
    if (u.pathname === '/sso') {
      const r = readAuthnRequest(u.href);
      const body = response({ inResponseTo: r.id, acs: r.acs, audience: r.issuer });
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<!doctype html><html><body><p>Test identity provider: signing in ${esc(state.user.email)}...</p>` +
            `<form id="f" method="post" action="${esc(r.acs)}"><input type="hidden" name="SAMLResponse" value="${body}">` +
            `<input type="hidden" name="RelayState" value="${esc(u.searchParams.get('RelayState') ?? '')}"></form>` +
            `<script>document.getElementById('f').submit()</script></body></html>`,
        );
      return;
    }
    if (u.pathname === '/slo' && u.searchParams.has('SAMLRequest')) {
      // SP-initiated single logout: record the request, check its query signature, answer with a signed
      // LogoutResponse to the SP's SLO URL (its entity id's /metadata becomes /slo, as Parley names them).
      const raw = (u.search.slice(1) || '').split('&');
      const token = (k: string) => raw.find((t) => t.startsWith(`${k}=`));
      const xml = inflateRawSync(Buffer.from(u.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
      const signature = u.searchParams.get('Signature');
      let signatureValid: boolean | null = null;
      if (signature && state.spCert) {
        const signed = [token('SAMLRequest'), token('RelayState'), token('SigAlg')].filter(Boolean).join('&');
        signatureValid = createVerify('RSA-SHA256').update(signed).verify(state.spCert, signature, 'base64');
      }
      const got: SpLogoutRequest = {
        id: /\bID="([^"]+)"/.exec(xml)?.[1] ?? '',
        issuer: /<(?:\w+:)?Issuer[^>]*>([^<]+)</.exec(xml)?.[1] ?? '',
        nameId: /<(?:\w+:)?NameID[^>]*>([^<]+)</.exec(xml)?.[1] ?? '',
        sessionIndex: /<(?:\w+:)?SessionIndex[^>]*>([^<]+)</.exec(xml)?.[1] ?? '',
        destination: /\bDestination="([^"]+)"/.exec(xml)?.[1] ?? '',
        signed: !!signature,
        signatureValid,
      };
      state.logoutRequests.push(got);
      const sp = got.issuer.replace(/\/metadata$/, '/slo');
      const now = new Date().toISOString();
      const answer =
        `<samlp:LogoutResponse xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_lr${randomBytes(16).toString('hex')}" Version="2.0" IssueInstant="${now}" Destination="${esc(sp)}" InResponseTo="${esc(got.id)}">` +
        `<saml:Issuer>${esc(base)}</saml:Issuer>` +
        `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status></samlp:LogoutResponse>`;
      const q = `SAMLResponse=${encodeURIComponent(deflate64(answer))}&SigAlg=${encodeURIComponent(SIG_ALG)}`;
      res.writeHead(302, { location: `${sp}?${q}&Signature=${encodeURIComponent(signQuery(signing.key, q))}` }).end();
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;

  const metadata = () =>
    `<?xml version="1.0"?>\n<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${base}">` +
    `<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol" WantAuthnRequestsSigned="false">` +
    `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${signing.certB64}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>` +
    `<md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${base}/slo"/>` +
    `<md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>` +
    `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${base}/sso"/>` +
    `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${base}/sso"/>` +
    `</md:IDPSSODescriptor></md:EntityDescriptor>`;

  /**
   * An IdP-initiated LogoutRequest for `nameId` (and `sessionIndex`) to the SP's SLO URL `destination`:
   * HTTP-Redirect (the URL the browser is sent to, signed in the query) or HTTP-POST (the base64 SAMLRequest
   * with an enveloped XML signature). Faults: `unsigned`, `forged` (another key), `tampered` (NameID changed
   * after signing).
   */
  const logoutRequest = (o: {
    destination: string;
    nameId: string;
    sessionIndex?: string;
    fault?: LogoutFault;
    binding?: 'redirect' | 'post';
    relayState?: string;
  }) => {
    const fault = o.fault ?? 'none';
    const key = fault === 'forged' ? forger : signing;
    const now = Date.now();
    const xmlFor = (nameId: string) =>
      `<samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_l${randomBytes(16).toString('hex')}" Version="2.0" IssueInstant="${new Date(now).toISOString()}" NotOnOrAfter="${new Date(now + 300_000).toISOString()}" Destination="${esc(o.destination)}">` +
      `<saml:Issuer>${esc(base)}</saml:Issuer>` +
      `<saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${esc(nameId)}</saml:NameID>` +
      (o.sessionIndex ? `<samlp:SessionIndex>${esc(o.sessionIndex)}</samlp:SessionIndex>` : '') +
      `</samlp:LogoutRequest>`;
    const xml = xmlFor(o.nameId);
    const id = /\bID="([^"]+)"/.exec(xml)?.[1] ?? '';
    if ((o.binding ?? 'redirect') === 'post') {
      let out = xml;
      if (fault !== 'unsigned') {
        const sig = new SignedXml({
          privateKey: key.key,
          publicCert: key.cert,
          signatureAlgorithm: SIG_ALG,
          canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
        });
        sig.addReference({
          xpath: "/*[local-name(.)='LogoutRequest']",
          transforms: [
            'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
            'http://www.w3.org/2001/10/xml-exc-c14n#',
          ],
          digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
        });
        sig.computeSignature(xml, {
          location: { reference: "/*[local-name(.)='LogoutRequest']/*[local-name(.)='Issuer']", action: 'after' },
        });
        out = sig.getSignedXml();
      }
      if (fault === 'tampered') out = out.replace(`>${esc(o.nameId)}<`, '>mallory@idp.example<');
      return { id, url: o.destination, SAMLRequest: Buffer.from(out).toString('base64') };
    }
    let q = `SAMLRequest=${encodeURIComponent(deflate64(xml))}`;
    if (o.relayState) q += `&RelayState=${encodeURIComponent(o.relayState)}`;
    q += `&SigAlg=${encodeURIComponent(SIG_ALG)}`;
    const signature = signQuery(key.key, q);
    // Tampered: the request is swapped for another user's after the query was signed.
    if (fault === 'tampered')
      q = q.replace(
        /^SAMLRequest=[^&]+/,
        `SAMLRequest=${encodeURIComponent(deflate64(xmlFor('mallory@idp.example')))}`,
      );
    const url = `${o.destination}?${fault === 'unsigned' ? q : `${q}&Signature=${encodeURIComponent(signature)}`}`;
    return { id, url, SAMLRequest: '' };
  };

  /** A LogoutResponse the SP sent back (the IdP-initiated flow's end), read from the SP's redirect. */
  const readLogoutResponse = (location: string) => {
    const u = new URL(location);
    const xml = inflateRawSync(Buffer.from(u.searchParams.get('SAMLResponse') ?? '', 'base64')).toString('utf8');
    return {
      inResponseTo: /\bInResponseTo="([^"]+)"/.exec(xml)?.[1] ?? '',
      status: /StatusCode Value="([^"]+)"/.exec(xml)?.[1] ?? '',
      signed: u.searchParams.has('Signature'),
      path: u.pathname,
    };
  };

  return {
    url: base,
    host: `127.0.0.1:${port}`,
    state,
    metadata,
    response,
    logoutRequest,
    readLogoutResponse,
    /** The IdP's signing certificate (PEM), for tests that make a second IdP look alike. */
    cert: signing.cert,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
