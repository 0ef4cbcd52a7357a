import { effectiveStatus, statusLabel } from '@parley/contracts';

/** A team activity entry as a sentence: "Dana went offline", "Dana came online", "Dana is busy: lunch". */
export function activitySentence(e: { status: string; second_status: string; reason: string }, name: string): string {
  const s = effectiveStatus(e);
  const reason = e.reason.trim();
  if (s === 'OFFLINE') return `${name} went offline`;
  if (s === 'ONLINE') return `${name} came online`;
  const label = statusLabel(s);
  const lower = label === s ? label : label.toLowerCase();
  return reason ? `${name} is ${lower}: ${reason}` : `${name} is ${lower}`;
}
