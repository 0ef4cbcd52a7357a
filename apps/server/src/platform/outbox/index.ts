/** The event spine: append events in a command's transaction; the relay delivers them to listeners. */

export type { NewEvent, StoredEvent, Trx } from './outbox.js';
export {
  appendEvent,
  appendEvents,
  eventsAfter,
  eventsAppendedIn,
  headSeq,
  onCommitted,
  runCommand,
} from './outbox.js';
export type { Listener } from './relay.js';
export { Relay } from './relay.js';
