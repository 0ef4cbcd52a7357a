/** A snippet as the server sends it (escaped HTML with only `<mark>` added) split into text and marked parts. */
export function snippetParts(html: string): { text: string; marked: boolean }[] {
  const decode = (s: string) =>
    s
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&');
  const out: { text: string; marked: boolean }[] = [];
  for (const [i, part] of html.split(/<mark>|<\/mark>/).entries())
    if (part) out.push({ text: decode(part), marked: i % 2 === 1 });
  return out;
}
