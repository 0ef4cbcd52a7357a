/** Calls: the call server the softphones register at (CALL-13, CALL-14, CALL-43, CALL-44). */

/** `GET` and `POST /api/call/config`. */
export { callRoutes } from './calls.routes.js';
