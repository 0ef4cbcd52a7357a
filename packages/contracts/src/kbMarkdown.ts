/**
 * The Markdown of knowledge-base articles, read into a small tree that the web turns into React elements
 * (never into HTML): raw HTML in an article stays text, and a link or image keeps only a safe address.
 * Supported: headings, paragraphs, bullet and numbered lists, quotes, fenced code, rules, and inline
 * **bold**, *italic*, `code`, [links](url) and ![images](url).
 */
export type MdInline =
  | { t: 'text'; text: string }
  | { t: 'strong' | 'em'; children: MdInline[] }
  | { t: 'code'; text: string }
  | { t: 'link'; href: string; children: MdInline[] }
  | { t: 'image'; src: string; alt: string };

export type MdBlock =
  | { t: 'heading'; level: 1 | 2 | 3 | 4 | 5 | 6; children: MdInline[] }
  | { t: 'paragraph'; children: MdInline[] }
  | { t: 'list'; ordered: boolean; items: MdInline[][] }
  | { t: 'quote'; children: MdBlock[] }
  | { t: 'code'; text: string }
  | { t: 'rule' };

/** An address kept in a link or image: http(s), mailto, or a path of this site. Anything else is dropped. */
export function safeUrl(raw: string): string | null {
  const url = raw.trim();
  if (/^https?:\/\//i.test(url) || /^mailto:/i.test(url)) return url;
  if (url.startsWith('/') && !url.startsWith('//') && !url.startsWith('/\\')) return url;
  if (url.startsWith('#')) return url;
  return null;
}

/** An address in `(...)`: no spaces, one level of balanced parentheses (so `javascript:alert(1)` is one address). */
const ADDRESS = String.raw`\(((?:[^()\s]|\([^()\s]*\))*)\)`;
/** The same, capturing nothing: the alternatives of INLINE are told apart by their own groups. */
const SKIP_ADDRESS = ADDRESS.replace('\\((', '\\((?:');
const INLINE = new RegExp(
  String.raw`(${'`'}[^${'`'}]+${'`'})|(!\[[^\]]*\]${SKIP_ADDRESS})|(\[[^\]]+\]${SKIP_ADDRESS})|(\*\*[^*]+\*\*)|(\*[^*\s][^*]*\*|_[^_\s][^_]*_)`,
);
const IMAGE = new RegExp(String.raw`^!\[([^\]]*)\]${ADDRESS}$`);
const LINK = new RegExp(String.raw`^\[([^\]]+)\]${ADDRESS}$`);

/** Inline Markdown of one block's text. */
export function parseInline(text: string): MdInline[] {
  const out: MdInline[] = [];
  let rest = text;
  while (rest.length > 0) {
    const m = INLINE.exec(rest);
    if (!m) {
      out.push({ t: 'text', text: rest });
      break;
    }
    if (m.index > 0) out.push({ t: 'text', text: rest.slice(0, m.index) });
    const tok = m[0];
    if (m[1]) out.push({ t: 'code', text: tok.slice(1, -1) });
    else if (m[2]) {
      const [, alt = '', src = ''] = IMAGE.exec(tok) ?? [];
      const safe = safeUrl(src);
      out.push(safe ? { t: 'image', src: safe, alt } : { t: 'text', text: alt });
    } else if (m[3]) {
      const [, label = '', href = ''] = LINK.exec(tok) ?? [];
      const safe = safeUrl(href);
      const children = parseInline(label);
      if (safe) out.push({ t: 'link', href: safe, children });
      else out.push(...children);
    } else if (m[4]) out.push({ t: 'strong', children: parseInline(tok.slice(2, -2)) });
    else out.push({ t: 'em', children: parseInline(tok.slice(1, -1)) });
    rest = rest.slice(m.index + tok.length);
  }
  return out;
}

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*\d{1,9}[.)]\s+(.*)$/;
const RULE = /^\s*([-*_])(\s*\1){2,}\s*$/;

/** Block Markdown of a whole article. */
export function parseMarkdown(source: string): MdBlock[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: MdBlock[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i++;
      continue;
    }
    if (line.trimStart().startsWith('```')) {
      const code: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trimStart().startsWith('```')) code.push(lines[i++]!);
      i++;
      blocks.push({ t: 'code', text: code.join('\n') });
      continue;
    }
    const h = HEADING.exec(line);
    if (h) {
      blocks.push({ t: 'heading', level: h[1]!.length as 1, children: parseInline(h[2]!) });
      i++;
      continue;
    }
    if (RULE.test(line)) {
      blocks.push({ t: 'rule' });
      i++;
      continue;
    }
    if (line.trimStart().startsWith('>')) {
      const quoted: string[] = [];
      while (i < lines.length && lines[i]!.trimStart().startsWith('>'))
        quoted.push(lines[i++]!.trimStart().replace(/^>\s?/, ''));
      blocks.push({ t: 'quote', children: parseMarkdown(quoted.join('\n')) });
      continue;
    }
    const listKind = BULLET.test(line) ? BULLET : NUMBERED.test(line) ? NUMBERED : null;
    if (listKind) {
      const items: MdInline[][] = [];
      for (let m = listKind.exec(lines[i] ?? ''); m; m = listKind.exec(lines[i] ?? '')) {
        items.push(parseInline(m[1] ?? ''));
        i++;
      }
      blocks.push({ t: 'list', ordered: listKind === NUMBERED, items });
      continue;
    }
    const para: string[] = [];
    while (
      i < lines.length &&
      lines[i]!.trim() !== '' &&
      !HEADING.test(lines[i]!) &&
      !lines[i]!.trimStart().startsWith('```') &&
      !lines[i]!.trimStart().startsWith('>') &&
      !BULLET.test(lines[i]!) &&
      !NUMBERED.test(lines[i]!)
    )
      para.push(lines[i++]!.trim());
    blocks.push({ t: 'paragraph', children: parseInline(para.join(' ')) });
  }
  return blocks;
}

const inlineText = (nodes: MdInline[]): string =>
  nodes
    .map((n) => (n.t === 'text' || n.t === 'code' ? n.text : n.t === 'image' ? n.alt : inlineText(n.children)))
    .join('');

/** The article as plain text (what the conversation's popup inserts into a reply). */
export function markdownToText(source: string): string {
  const blockText = (b: MdBlock): string => {
    switch (b.t) {
      case 'heading':
      case 'paragraph':
        return inlineText(b.children);
      case 'list':
        return b.items.map((item, n) => `${b.ordered ? `${n + 1}.` : '-'} ${inlineText(item)}`).join('\n');
      case 'quote':
        return b.children.map(blockText).join('\n\n');
      case 'code':
        return b.text;
      case 'rule':
        return '';
    }
  };
  return parseMarkdown(source)
    .map(blockText)
    .filter((s) => s !== '')
    .join('\n\n');
}
