/** The sequence tracker is shared with the server's tests: it lives in the contracts. */
export { SeqTracker } from '@parley/contracts';
