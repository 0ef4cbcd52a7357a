/** Labels and account settings (LABEL-01..20). */

/** Saves the account's labels in one go. */
export { updateLabels } from './commands/updateLabels.js';
/** Changes an account setting (the auto-close duration). */
export { updateSettings } from './commands/updateSettings.js';
/** Read side: the account's labels (removed ones flagged) and settings. */
export { listLabels, readSettings } from './labels.queries.js';
/** `labelsUpdated` and `settingsChanged` go to the account room. */
export { labelsAudience, settingsAudience } from './labels.realtime.js';
/** HTTP routes of the module. */
export { labelRoutes } from './labels.routes.js';
