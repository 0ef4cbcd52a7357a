import type { CannedReply } from '@parley/contracts';

/**
 * The `/word` being typed at the caret: a slash at the start of the text or after a space or line break, then
 * anything but spaces up to the caret. `start` is where the slash is; `query` what follows it.
 */
export function slashQuery(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret);
  const m = /(^|\s)\/([^\s/]*)$/.exec(before);
  if (!m) return null;
  const query = m[2] ?? '';
  return { start: caret - query.length - 1, query };
}

/**
 * The canned replies matching what was typed after the slash, best first: shortcuts starting with it, then
 * titles starting with it, then any that hold it in the shortcut, title or text.
 */
export function matchReplies(replies: readonly CannedReply[], query: string, max = 8): CannedReply[] {
  const q = query.toLowerCase();
  const rank = (r: CannedReply) => {
    const shortcut = r.shortcut.toLowerCase();
    const title = r.title.toLowerCase();
    if (shortcut.startsWith(q)) return 0;
    if (title.startsWith(q)) return 1;
    if (shortcut.includes(q) || title.includes(q)) return 2;
    if (r.body.toLowerCase().includes(q)) return 3;
    return -1;
  };
  return replies
    .map((r) => ({ r, k: rank(r) }))
    .filter((x) => x.k >= 0)
    .sort((a, b) => a.k - b.k || a.r.shortcut.localeCompare(b.r.shortcut))
    .slice(0, max)
    .map((x) => x.r);
}

/** The text with the `/word` from `start` to `caret` replaced by `insert`; the caret goes after it. */
export function insertAt(text: string, start: number, caret: number, insert: string) {
  return { text: text.slice(0, start) + insert + text.slice(caret), caret: start + insert.length };
}
