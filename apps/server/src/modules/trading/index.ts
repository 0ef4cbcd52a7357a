/** The trading desk (docs/trading.md): instruments, their mentions in customers' messages, and the analyst's views. */

/** The mention listener (on `message.created`). */
export { tradingMentionListener } from './mention.listener.js';
/** Extraction and sentiment, pure. */
export { dayOf, findMentions, sentimentOf } from './read.js';
/** `/api/trading/...` routes. */
export { tradingRoutes } from './trading.routes.js';
