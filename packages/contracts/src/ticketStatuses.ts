import { z } from 'zod';

/**
 * TICKET-24, TICKET-25 (design): an account's own ticket statuses, beside the default codes
 * 0 to 3 (4 means "all" in filters). Codes are 5 and up, chosen by the server (the next free code of the
 * account, never reused after a delete, so an old ticket at a deleted code shows "?"). `alternate` "0"
 * means the status counts as open: its tickets show in the Open list and count toward an agent's open
 * load; any other value ("1") means a closed-type status, shown only under its own code and All.
 * Not the agent's own custom status (the Go Online banner, `/api/customstatus/get`): that is STATUS.
 */
export const TicketCustomStatus = z.object({
  id: z.number(),
  status_code: z.number(),
  name: z.string(),
  alternate: z.enum(['0', '1']),
});
export type TicketCustomStatus = z.infer<typeof TicketCustomStatus>;

/** The first code a custom ticket status may have. */
export const CUSTOM_STATUS_FIRST_CODE = 5;

export const TICKET_STATUS_STRINGS = {
  /** STATUS-19's alert, used for this list too: it fails the same way and is fixed the same way. */
  fetchFailed: 'Failed to fetch custom status. Reload page to fix it.',
  nameEmpty: 'Name is required.',
  nameLong: 'Name is too long.',
  nameTaken: 'A status with this name already exists.',
  notFound: 'Status not found.',
  unknownStatus: 'Unknown status.',
  saved: 'Status saved.',
  deleted: 'Status deleted.',
} as const;

const name = z
  .string({ error: TICKET_STATUS_STRINGS.nameEmpty })
  .trim()
  .min(1, TICKET_STATUS_STRINGS.nameEmpty)
  .max(40, TICKET_STATUS_STRINGS.nameLong);

/** `POST /api/ticketstatus` (admin): a new custom status; the code is the server's choice. */
export const TicketStatusCreateInput = z.object({ name, alternate: z.enum(['0', '1']).default('0') });
export type TicketStatusCreateInput = z.infer<typeof TicketStatusCreateInput>;
/** `POST /api/ticketstatus/update` (admin): rename or change the type of one, by id. */
export const TicketStatusUpdateInput = z.object({
  id: z.coerce.number().int().positive(),
  name,
  alternate: z.enum(['0', '1']),
});
export type TicketStatusUpdateInput = z.infer<typeof TicketStatusUpdateInput>;

/** `GET /api/ticketstatus/get`: the account's custom ticket statuses by code. */
export const TicketStatusListAnswer = z.object({ result: z.literal('success'), data: z.array(TicketCustomStatus) });
export const TicketStatusAnswer = z.object({ result: z.literal('success'), data: TicketCustomStatus });

/** Payload of `ticketStatusesUpdated` (account room): the whole list after an admin's change. */
export interface TicketStatusesUpdated {
  statuses: TicketCustomStatus[];
}

/** The codes that count as open: 0 and every custom status with alternate "0". */
export const openCodes = (custom: readonly { status_code: number; alternate: string }[]): number[] => [
  0,
  ...custom.filter((c) => c.alternate === '0').map((c) => c.status_code),
];
