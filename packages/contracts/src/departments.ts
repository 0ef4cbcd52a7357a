import { z } from 'zod';

/** TICKET-55: a department has an id and a name. */
export const Department = z.object({ id: z.number(), name: z.string() });
export type Department = z.infer<typeof Department>;
export const DepartmentListAnswer = z.object({ result: z.literal('success'), data: z.array(Department) });

export const DepartmentInput = z.object({
  name: z.string({ error: 'Name is required.' }).trim().min(1, 'Name is required.').max(60, 'Name is too long.'),
});
export type DepartmentInput = z.infer<typeof DepartmentInput>;
export const DEPARTMENT_EXISTS = 'A department with that name already exists.';
