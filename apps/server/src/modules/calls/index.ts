/**
 * Calls: the call server the softphones register at (CALL-13, CALL-14, CALL-43, CALL-44); every call as a
 * CALL ticket with its facts, recording and transcript (CALL-29 .. CALL-40); recordings (REC).
 */

/** `GET` and `POST /api/call/config`, the call log, the line look-ups and the recordings. */
export { callRoutes } from './calls.routes.js';
