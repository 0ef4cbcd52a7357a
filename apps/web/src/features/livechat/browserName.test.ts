import { describe, expect, it } from 'vitest';
import { browserName } from './browserName';

describe('the visitor browser in words', () => {
  it('names common browsers and systems, and keeps anything else as sent', () => {
    expect(
      browserName(
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      ),
    ).toBe('Chrome 131 on Windows');
    expect(
      browserName(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
      ),
    ).toBe('Safari 17 on iOS');
    expect(browserName('Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0')).toBe(
      'Firefox 128 on Linux',
    );
    expect(browserName('TestBrowser/1.0')).toBe('TestBrowser/1.0');
    expect(browserName('')).toBe('');
  });
});
