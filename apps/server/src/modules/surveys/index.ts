/** Satisfaction surveys after a ticket: the agent's link, the customer's page, the CSAT rating. */

/** HTTP routes of the module (the customer page's two calls are public, by token). */
export { surveyRoutes } from './surveys.routes.js';
