import { describe, expect, it } from 'vitest';
import { searchParams } from './api';
import { snippetParts } from './highlight';

describe('search snippets and parameters', () => {
  it('a snippet is text and marked parts; nothing else is ever markup', () => {
    expect(snippetParts('a &lt;b&gt; <mark>refund</mark> &amp; c')).toEqual([
      { text: 'a <b> ', marked: false },
      { text: 'refund', marked: true },
      { text: ' & c', marked: false },
    ]);
  });
  it('SEARCH-06 SEARCH-12 tokens map to the API parameters; pages are 0-based, 6 each', () => {
    const q = new URLSearchParams(searchParams('label:VIP from:alice number:12 contact:Pat refund', 1, 2));
    expect(Object.fromEntries(q)).toEqual({
      entity: 'refund',
      label: 'VIP',
      username: 'alice',
      ticket: '12',
      contact: 'Pat',
      search_index: '6',
      search_message_index: '12',
    });
  });
});
