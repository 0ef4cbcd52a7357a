import type { Department } from '@parley/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../http';
import { departmentsKey } from '../queryKeys';

export const departmentsApi = {
  list: () => api<{ result: 'success'; data: Department[] }>('GET', '/api/departments').then((r) => r.data),
  create: (name: string) => api<{ data: Department }>('POST', '/api/departments', { name }),
  rename: (id: number, name: string) => api<{ data: Department }>('PATCH', `/api/departments/${id}`, { name }),
  remove: (id: number) => api<{ result: 'success' }>('DELETE', `/api/departments/${id}`),
};

export const useDepartments = () =>
  useQuery({ queryKey: departmentsKey, queryFn: departmentsApi.list, staleTime: 60_000 });
