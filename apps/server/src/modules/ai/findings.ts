import type { AiAnalysis } from '@parley/contracts';

/** AI-01: the next best action in the words an agent reads. */
export const ACTION_TEXT = {
  escalate:
    'Escalate to a supervisor before acting: this message may be a scam, a legal threat or a serious complaint.',
  offer_callback: 'Offer the customer a call back: this is easier to sort out by phone.',
  send_article: 'Send the customer the help article that answers this.',
  ask_for_id: 'Ask the customer to confirm who they are before changing anything on the account.',
  reply: 'Reply to the customer.',
} as const;

/**
 * AI-02: a reading as the message keeps it. `recommendation` is the next best action when it is more than
 * "reply"; `scam_results` holds the scam finding when there is one; `aiqon_results` the other findings
 * (personality, sales signal, next action), each with its confidence and cues.
 */
export function messageFindings(a: AiAnalysis): {
  recommendation: string;
  aiqon_results: Record<string, unknown>[];
  scam_results: Record<string, unknown>[];
} {
  const finding = (kind: string, r: { value: string | null; confidence: number; cues: unknown[] }) =>
    r.value === null ? [] : [{ kind, value: r.value, confidence: r.confidence, cues: r.cues }];
  return {
    recommendation: a.next_action.value === 'reply' ? '' : ACTION_TEXT[a.next_action.value],
    aiqon_results: [
      ...finding('personality', a.personality),
      ...finding('sales', a.sales),
      ...(a.next_action.value === 'reply' ? [] : finding('next_action', a.next_action)),
    ],
    scam_results: finding('scam', a.scam),
  };
}
