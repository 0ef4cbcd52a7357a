import { describe, expect, it } from 'vitest';
import { markdownToText, parseInline, parseMarkdown, safeUrl } from './kbMarkdown.js';

describe('knowledge-base Markdown', () => {
  it('KB reads headings, lists, quotes, code and inline marks into a tree', () => {
    expect(
      parseMarkdown(
        '# Title\n\nSome **bold** and *it*.\n\n- one\n- two\n\n1. first\n\n> quoted\n\n```\n<b>x</b>\n```\n\n---',
      ),
    ).toEqual([
      { t: 'heading', level: 1, children: [{ t: 'text', text: 'Title' }] },
      {
        t: 'paragraph',
        children: [
          { t: 'text', text: 'Some ' },
          { t: 'strong', children: [{ t: 'text', text: 'bold' }] },
          { t: 'text', text: ' and ' },
          { t: 'em', children: [{ t: 'text', text: 'it' }] },
          { t: 'text', text: '.' },
        ],
      },
      { t: 'list', ordered: false, items: [[{ t: 'text', text: 'one' }], [{ t: 'text', text: 'two' }]] },
      { t: 'list', ordered: true, items: [[{ t: 'text', text: 'first' }]] },
      { t: 'quote', children: [{ t: 'paragraph', children: [{ t: 'text', text: 'quoted' }] }] },
      { t: 'code', text: '<b>x</b>' },
      { t: 'rule' },
    ]);
  });

  it('KB HTML stays text and only safe addresses survive in links and images', () => {
    expect(parseMarkdown('<script>alert(1)</script>')).toEqual([
      { t: 'paragraph', children: [{ t: 'text', text: '<script>alert(1)</script>' }] },
    ]);
    expect(parseInline('[x](javascript:alert(1))')).toEqual([{ t: 'text', text: 'x' }]);
    expect(parseInline('[wiki](https://en.wikipedia.org/wiki/Foo_(bar))')).toEqual([
      { t: 'link', href: 'https://en.wikipedia.org/wiki/Foo_(bar)', children: [{ t: 'text', text: 'wiki' }] },
    ]);
    expect(parseInline('[docs](https://example.com/a)')).toEqual([
      { t: 'link', href: 'https://example.com/a', children: [{ t: 'text', text: 'docs' }] },
    ]);
    expect(parseInline('![shot](/files/abcdefghijklmnopqrstuv/a.png)')).toEqual([
      { t: 'image', src: '/files/abcdefghijklmnopqrstuv/a.png', alt: 'shot' },
    ]);
    expect(parseInline('![shot](data:image/svg+xml,x)')).toEqual([{ t: 'text', text: 'shot' }]);
    for (const bad of ['javascript:x', 'JAVASCRIPT:x', '//evil.example', 'vbscript:x', 'data:text/html,x', '/\\evil'])
      expect(safeUrl(bad), bad).toBeNull();
  });

  it('KB plain text of an article drops the marks and keeps list numbers', () => {
    expect(markdownToText('## Steps\n\n1. Open **Settings**\n2. Press [Save](/save)\n\n![pic](/x.png)')).toBe(
      'Steps\n\n1. Open Settings\n2. Press Save\n\npic',
    );
  });
});
