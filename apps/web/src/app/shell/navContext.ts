import { type AuthCheckAnswer, HOST_VARIANTS, type HostVariant, type NavContext } from '@parley/contracts';

/**
 * What the visibility rules need, read from the auth check: the host variant (an unknown one is combined),
 * admin or not (a supervisor is not), the permission strings, the plan, the account's features,
 * and whether a call is ringing outside the call pages (NAV-16, NAV-17).
 */
export function navContextOf(session: AuthCheckAnswer, incomingCall = false): NavContext {
  const variant = (HOST_VARIANTS as readonly string[]).includes(session.productDetails?.variant ?? '')
    ? (session.productDetails?.variant as HostVariant)
    : 'combined';
  return {
    variant,
    isAdmin: session.type === 'admin',
    permissions: session.permission ?? [],
    plan: session.plan ?? 0,
    features: session.productDetails?.features ?? [],
    incomingCall,
  };
}
