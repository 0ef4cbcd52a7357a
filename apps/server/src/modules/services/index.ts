/** The optional services this installation offers its users. */
export { type Services, servicesRoutes } from './services.routes.js';
