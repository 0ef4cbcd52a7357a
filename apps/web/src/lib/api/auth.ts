import type { AuthCheckAnswer, CreateWorkspaceInput, SetupState, SignInAnswer, SignInInput } from '@parley/contracts';
import { api } from '../http';

export const authApi = {
  setupState: () => api<SetupState>('GET', '/api/setup'),
  createWorkspace: (input: CreateWorkspaceInput) => api<SignInAnswer>('POST', '/api/setup', input),
  signIn: (input: SignInInput) => api<SignInAnswer>('POST', '/api/auth2', input),
  signUp: (input: CreateWorkspaceInput) => api<SignInAnswer>('POST', '/api/signup', input),
  requestReset: (email: string) =>
    api<{ result: string; description?: string }>('POST', '/api/password_reset', { email }),
  confirmReset: (token: string, password: string) =>
    api<{ result: string; description?: string }>('POST', '/api/password_reset/confirm', { token, password }),
  check: () => api<AuthCheckAnswer>('POST', '/api/auth/check', {}),
  /**
   * Ends this session; one opened through OpenID Connect also names the identity provider's sign-out URL
   * (`redirect`), where the browser goes next. Works for every session, so it is the one sign-out.
   */
  signOut: () => api<{ result: string; redirect: string }>('POST', '/api/sso/signout'),
  /** Whether any account signs in with single sign-on: the sign-in page offers the way only then. */
  ssoOffered: () => api<{ offered: boolean }>('GET', '/api/sso/offered').then((r) => r.offered),
  /** The start address of an organisation's single sign-on, by its sign-in name. */
  ssoLookup: (name: string) =>
    api<{ result: 'success'; start: string }>('GET', `/api/sso/lookup?name=${encodeURIComponent(name)}`),
  /** Two-factor sign-in of the signed-in user (Settings, and the page an account that requires it shows). */
  tfaSetup: (password: string) =>
    api<{ secret: string; uri: string; qr: string }>('POST', '/api/user/2fa/setup', { password }),
  tfaEnable: (code: string) =>
    api<{ result: string; backup_codes: string[] }>('POST', '/api/user/2fa/enable', { code }),
  tfaDisable: (password: string) =>
    api<{ result: string; description?: string }>('POST', '/api/user/2fa/disable', { password }),
};
