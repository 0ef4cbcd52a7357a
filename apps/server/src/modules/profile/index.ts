/** PROFILE: the profile modal of users and contacts. */

/** Read side: who a profile is, its lists, activity and experience. */
export { activityOf, contactOfTicket, experienceOf, listOfSubject, resolveSubject } from './profile.queries.js';
/** HTTP routes of the profile modal. */
export { profileRoutes } from './profile.routes.js';
