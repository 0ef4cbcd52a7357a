/** PROFILE: the profile modal of users and contacts. */

/** PROFILE-16: the caller sets or removes their profile picture. */
export { setProfilePhoto } from './commands/setProfilePhoto.js';
/** Read side: who a profile is, its lists, activity and experience. */
export { activityOf, contactOfTicket, experienceOf, listOfSubject, resolveSubject } from './profile.queries.js';
/** HTTP routes of the profile modal. */
export { profileRoutes } from './profile.routes.js';
