import type { ServicesAnswer } from '@parley/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from './http';
import { servicesKey } from './queryKeys';

/**
 * The optional services this installation has set up (translation, AI hints, mail), asked once a session:
 * what is not set up is not offered. Undefined while the answer is on its way.
 */
export function useServices(): ServicesAnswer | undefined {
  return useQuery({
    queryKey: servicesKey,
    queryFn: () => api<ServicesAnswer>('GET', '/api/services'),
    staleTime: Number.POSITIVE_INFINITY,
  }).data;
}
