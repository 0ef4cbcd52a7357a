/** Automation rules per account (beyond the spec; see docs/automation.md). */

/** HTTP routes of the module. */
export { automationRoutes } from './automation.routes.js';
/** The relay listener that runs the rules on the events they wait for. */
export { automationListener } from './engine.js';
/** The scheduled removal of the loop guard's old rows. */
export { pruneAutomationChains } from './prune.js';
