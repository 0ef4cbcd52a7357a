import { z } from 'zod';

/** A row id in a path: a positive whole number a JS number holds exactly (anything else is a 400, not a lookup). */
export const RowId = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/** The `:id` of a route's path. */
export const IdParams = z.object({ id: RowId });
