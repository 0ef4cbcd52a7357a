import { z } from 'zod';
import { USER_TYPES } from './constants.js';

/**
 * Single sign-on per account (docs/sso.md): OpenID Connect (authorization code with PKCE) or SAML 2.0
 * (HTTP-Redirect request, HTTP-POST response). Users pick their account on the sign-in page by its sign-in
 * name (`slug`); the first sign-in of an unknown e-mail creates the user (just in time).
 */
export const SSO_KINDS = ['oidc', 'saml'] as const;
export type SsoKind = (typeof SSO_KINDS)[number];

/** The cookie that binds an OpenID Connect sign-in under way to the browser that started it. */
export const SSO_STATE_COOKIE = 'parley_sso';

export const SSO_STRINGS = {
  logoutRefused: 'The logout request could not be verified: nothing was signed out.',
  title: 'Single sign-on',
  hint: 'Let your team sign in with your identity provider through OpenID Connect or SAML 2.0. A user signing in for the first time is created with the role and department you choose.',
  kind: 'Protocol',
  oidc: 'OpenID Connect',
  saml: 'SAML 2.0',
  slug: 'Sign-in name',
  slugHint: 'Your team types this on the sign-in page after "Sign in with SSO".',
  enabled: 'Single sign-on is on',
  ssoOnly: 'SSO only: turn passwords off for this account',
  ssoOnlyHint:
    'Only the account owner (the first admin) may still sign in with a password, so a broken identity provider never locks everyone out.',
  jitType: 'New users become',
  jitDepartment: 'New users join department',
  noDepartment: 'No department',
  issuer: 'Issuer URL',
  clientId: 'Client ID',
  clientSecret: 'Client secret',
  clientSecretKept: 'A client secret is saved. Leave empty to keep it.',
  scopes: 'Scopes',
  metadata: 'IdP metadata XML',
  metadataHint: 'Paste the metadata XML your identity provider offers (or fill in the sign-in URL and certificate).',
  entryPoint: 'IdP sign-in URL',
  certificate: 'IdP signing certificate (PEM)',
  certificatesKept: (n: number) =>
    `${n} signing certificate${n === 1 ? ' is' : 's are'} saved. Leave empty (and the metadata too) to keep ${n === 1 ? 'it' : 'them'}.`,
  spEntityId: 'Service provider entity ID',
  yourUrls: 'Give your identity provider these addresses',
  redirectUri: 'Redirect URI',
  acsUrl: 'Assertion consumer service URL',
  spEntity: 'Entity ID (audience)',
  signInLink: 'Direct sign-in link',
  save: 'Save',
  saved: 'Single sign-on saved.',
  test: 'Test connection',
  remove: 'Remove',
  removed: 'Single sign-on removed.',
  signInWithSso: 'Sign in with SSO',
  ssoCompany: 'Sign-in name of your organisation',
  ssoContinue: 'Continue',
  backToPassword: 'Sign in with a password',
  // Answers and refusals.
  notConfigured: 'Single sign-on is not set up for this account.',
  unknownSlug: 'No single sign-on is set up under this name.',
  slugTaken: 'This sign-in name is taken. Choose another one.',
  badSlug:
    'A sign-in name has 3 to 50 lowercase letters, digits or dashes, and starts and ends with a letter or digit.',
  badIssuer: 'The issuer must be a URL.',
  issuerHttps: 'The issuer must be an https URL at a public address.',
  badEntryPoint: 'The IdP sign-in URL must be an https URL at a public address.',
  metadataNotXml: 'The IdP metadata is not XML.',
  metadataNotIdp:
    'The IdP metadata has no identity provider in it (an EntityDescriptor with an IDPSSODescriptor is expected).',
  metadataNoSso: 'The IdP metadata names no sign-in URL with the HTTP-Redirect binding.',
  metadataNoCert: 'The IdP metadata has no signing certificate.',
  badCertificate: 'The IdP signing certificate is not a valid X.509 certificate.',
  samlNeedsIdp: 'Give the IdP metadata XML, or its sign-in URL and signing certificate.',
  oidcNeedsClient: 'Give the issuer URL and the client ID.',
  secretNeeded: 'Give the client secret.',
  secretsOff: 'The server has no SECRETS_KEY, so it cannot keep a client secret. Ask your operator to set it.',
  unknownDepartment: 'Unknown department.',
  ssoOnlyRefused: 'Your organisation signs in with single sign-on. Use "Sign in with SSO" on the sign-in page.',
  signInFailed: 'Single sign-on did not succeed. Try again, or ask your admin.',
  expired: 'This sign-in took too long or was already used. Start again.',
  noEmail: 'The identity provider did not say who you are (no e-mail address). Ask your admin.',
  deactivated: 'This user has been deactivated.',
  unreachable: 'The identity provider could not be reached.',
  testOk: 'The identity provider answered.',
} as const;

/** Sign-in names: lowercase letters, digits and dashes, 3..50, no dash at either end. */
export const SSO_SLUG = /^[a-z0-9](?:[a-z0-9-]{1,48})[a-z0-9]$/;

const text = (max: number) => z.string().trim().max(max);

export const SsoConfigInput = z.object({
  kind: z.enum(SSO_KINDS),
  enabled: z.boolean(),
  ssoOnly: z.boolean().default(false),
  slug: z.string().trim().toLowerCase().regex(SSO_SLUG, SSO_STRINGS.badSlug),
  jitType: z.enum(USER_TYPES).default('agent'),
  jitDepartmentId: z.number().int().positive().nullable().default(null),
  oidc: z
    .object({
      issuer: text(500),
      clientId: text(300),
      /** Absent or empty: the saved secret stays. */
      clientSecret: z.string().max(2000).optional(),
      scopes: text(300).default('openid email profile'),
    })
    .nullish(),
  saml: z
    .object({
      /** The IdP's metadata XML; when given, it names the sign-in URL and certificates. */
      metadataXml: z.string().max(500_000).default(''),
      entryPoint: text(2000).default(''),
      certificate: z.string().max(20_000).default(''),
      /** Empty: the account's own default (its metadata URL). */
      spEntityId: text(500).default(''),
    })
    .nullish(),
});
export type SsoConfigInput = z.input<typeof SsoConfigInput>;

export const SsoConfigView = z.object({
  kind: z.enum(SSO_KINDS),
  enabled: z.boolean(),
  ssoOnly: z.boolean(),
  slug: z.string(),
  jitType: z.enum(USER_TYPES),
  jitDepartmentId: z.number().nullable(),
  oidc: z
    .object({ issuer: z.string(), clientId: z.string(), hasClientSecret: z.boolean(), scopes: z.string() })
    .nullable(),
  saml: z
    .object({
      idpEntityId: z.string(),
      entryPoint: z.string(),
      logoutUrl: z.string(),
      certificates: z.number(),
      spEntityId: z.string(),
      hasMetadata: z.boolean(),
    })
    .nullable(),
});
export type SsoConfigView = z.infer<typeof SsoConfigView>;

/** The addresses the identity provider is given; they do not change with the sign-in name. */
export const SsoUrls = z.object({
  start: z.string(),
  oidcRedirect: z.string(),
  samlAcs: z.string(),
  samlEntityId: z.string(),
});
export type SsoUrls = z.infer<typeof SsoUrls>;

export const SsoConfigAnswer = z.object({
  result: z.literal('success'),
  data: SsoConfigView.nullable(),
  urls: SsoUrls,
});
export type SsoConfigAnswer = z.infer<typeof SsoConfigAnswer>;

export const SsoTestAnswer = z.object({ result: z.literal('success'), ok: z.boolean(), detail: z.string() });
export type SsoTestAnswer = z.infer<typeof SsoTestAnswer>;

export const SsoOfferedAnswer = z.object({ offered: z.boolean() });
export const SsoLookupQuery = z.object({ name: z.string().trim().toLowerCase().max(60) });
export const SsoLookupAnswer = z.object({ result: z.literal('success'), start: z.string() });
export const SsoAccountParams = z.object({ account: z.string().trim().toLowerCase().max(60) });
export const SsoAccountIdParams = z.object({ account: z.coerce.number().int().positive() });
export const SsoSignOutAnswer = z.object({ result: z.literal('success'), redirect: z.string() });
export type SsoSignOutAnswer = z.infer<typeof SsoSignOutAnswer>;
