/** Forms: the Main form and custom ones, their public new-ticket pages and their entries (see docs/forms.md). */

/** HTTP routes of the module (the public page's calls among them). */
export { type FormLimits, formRoutes } from './forms.routes.js';
