/** Sign-in, first run, auth check and sign-out routes. */

/** My sessions, password and two-factor routes. */
export { myAccountRoutes } from './account.routes.js';
export { authRoutes } from './auth.routes.js';
/** First-run workspace creation, also used by tests. */
export { createWorkspace, setupNeeded } from './commands/createWorkspace.js';
/** Username and password check that opens a session. */
export { signIn } from './commands/signIn.js';
/** The session cookies a sign-in sets and a sign-out clears (single sign-on opens sessions too). */
export { clearSessionCookies, setSessionCookies } from './cookies.js';
/** Sign-up, password reset and sign-in hand-off routes. */
export { linkBase, signupRoutes } from './signup.routes.js';
/** Throttles and limits of the public auth calls; the pruning of their counts. */
export { type HitLimit, pruneRateLimitHits, takeHits } from './throttle.js';
