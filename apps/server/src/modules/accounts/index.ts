/** Creates an account (used by first run, sign-up and the CLI). */
export { createAccount } from './commands/createAccount.js';
/** Creates a user in an account. */
export { createUser, defaultPermissions } from './commands/createUser.js';
/** PLAN-19..24: the one check of a plan's limits, and of the product functions it includes. */
export { type PlanFeature, requirePlanFeature, requireWithinPlan } from './entitlements.js';
/** Host variant and product title by host name. */
export { productTitle, variantFor } from './hostVariant.js';
/** Password hashing and checking. */
export { hashPassword, verifyPassword } from './passwords.js';
