/** Campaigns: named groups of tickets for one push or event of the business, with how their tickets stand. */

/** HTTP routes of the module. */
export { campaignRoutes } from './campaigns.routes.js';
