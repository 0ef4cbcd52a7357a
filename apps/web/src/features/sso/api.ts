import type { SsoConfigAnswer, SsoConfigInput, SsoTestAnswer } from '@parley/contracts';
import { api } from '../../lib/http';

export const ssoKeys = {
  config: ['sso', 'config'] as const,
};

/** Single sign-on: the admin's settings (the sign-in page's look-up is in lib/api/auth). */
export const ssoApi = {
  config: () => api<SsoConfigAnswer>('GET', '/api/sso/config'),
  save: (input: SsoConfigInput) => api<SsoConfigAnswer>('PUT', '/api/sso/config', input),
  remove: () => api<{ result: 'success' }>('DELETE', '/api/sso/config'),
  test: () => api<SsoTestAnswer>('POST', '/api/sso/config/test'),
};
