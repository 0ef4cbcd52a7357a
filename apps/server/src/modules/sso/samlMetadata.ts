import { X509Certificate } from 'node:crypto';
import { SSO_STRINGS } from '@parley/contracts';
import { DOMParser } from '@xmldom/xmldom';
import { badRequest } from '../../platform/http/errors.js';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

/** What Parley needs of an identity provider's SAML metadata. */
export interface IdpMetadata {
  entityId: string;
  /** The SingleSignOnService with the HTTP-Redirect binding. */
  entryPoint: string;
  /** The SingleLogoutService with the HTTP-Redirect binding, or ''. */
  logoutUrl: string;
  /** Signing certificates, base64 DER without armour. */
  certs: string[];
}

/**
 * Reads an IdP's metadata XML (an EntityDescriptor, or the first one with an IDPSSODescriptor inside an
 * EntitiesDescriptor). Throws a 400 with what is wrong: not XML, no identity provider, no sign-in URL, no
 * signing certificate. xmldom resolves no external entity, so the file can reach nothing.
 */
export function parseIdpMetadata(xml: string): IdpMetadata {
  let doc: Document | undefined;
  let broken = false;
  try {
    const parser = new DOMParser({
      errorHandler: {
        warning: () => {},
        error: () => {
          broken = true;
        },
        fatalError: () => {
          broken = true;
        },
      },
    });
    doc = parser.parseFromString(xml.trim(), 'text/xml') as unknown as Document;
  } catch {
    broken = true;
  }
  if (broken || !doc?.documentElement || !xml.trim().startsWith('<')) throw badRequest(SSO_STRINGS.metadataNotXml);
  const entities = [doc.documentElement, ...Array.from(doc.getElementsByTagNameNS(MD, 'EntityDescriptor'))];
  const entity = entities.find(
    (e) => e.localName === 'EntityDescriptor' && e.namespaceURI === MD && children(e, 'IDPSSODescriptor').length > 0,
  );
  if (!entity) throw badRequest(SSO_STRINGS.metadataNotIdp);
  const idp = children(entity, 'IDPSSODescriptor')[0]!;
  const service = (name: string) =>
    children(idp, name)
      .find((s) => s.getAttribute('Binding') === REDIRECT)
      ?.getAttribute('Location')
      ?.trim() ?? '';
  const entryPoint = service('SingleSignOnService');
  if (!entryPoint) throw badRequest(SSO_STRINGS.metadataNoSso);
  const certs = children(idp, 'KeyDescriptor')
    .filter((k) => (k.getAttribute('use') ?? 'signing') === 'signing')
    .flatMap((k) => Array.from(k.getElementsByTagNameNS(DS, 'X509Certificate')))
    .map((c) => (c.textContent ?? '').replace(/\s+/g, ''))
    .filter(Boolean);
  if (certs.length === 0) throw badRequest(SSO_STRINGS.metadataNoCert);
  for (const c of certs) checkedCert(c);
  return {
    entityId: entity.getAttribute('entityID') ?? '',
    entryPoint,
    logoutUrl: service('SingleLogoutService'),
    certs,
  };
}

function children(parent: Element, localName: string): Element[] {
  return Array.from(parent.childNodes).filter(
    (n): n is Element =>
      n.nodeType === 1 && (n as Element).localName === localName && (n as Element).namespaceURI === MD,
  );
}

/** A certificate given as PEM or bare base64, as base64 DER; a 400 when it is not an X.509 certificate. */
export function checkedCert(raw: string): string {
  const b64 = raw.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  try {
    new X509Certificate(Buffer.from(b64, 'base64'));
    return b64;
  } catch {
    throw badRequest(SSO_STRINGS.badCertificate);
  }
}
