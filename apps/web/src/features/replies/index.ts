/** Canned replies and macros in the web app (see docs/replies.md). */
export { CannedRepliesCard } from './CannedRepliesCard';
export { type ReplyTicket, useCannedReplyPicker } from './CannedReplyPicker';
export { MacroMenu } from './MacroMenu';
export { MacrosCard } from './MacrosCard';
