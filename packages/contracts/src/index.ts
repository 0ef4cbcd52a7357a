export * from './auth.js';
export * from './constants.js';
export * from './errors.js';
export * from './health.js';
export * from './realtime.js';
export * from './shell.js';
export * from './status.js';
export * from './users.js';
