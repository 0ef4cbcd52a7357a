/** Single sign-on per account: OpenID Connect and SAML 2.0 with just-in-time users (see docs/sso.md). */

/** "SSO only": whether a user's password sign-in is refused (the account owner's never is). */
export { passwordRefused } from './config.js';
/** The installation's SAML signing key (SAML_SP_KEY_FILE, SAML_SP_CERT_FILE), read and checked at start. */
export { loadSamlSpKey } from './saml.js';
/** HTTP routes: the admin's settings, the public start, the OIDC callback, the SAML ACS and single logout, sign-out. */
export { type SsoRouteDeps, ssoRoutes } from './sso.routes.js';
