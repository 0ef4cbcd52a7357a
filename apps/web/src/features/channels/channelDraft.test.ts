import type { ChannelView } from '@parley/contracts';
import { describe, expect, it } from 'vitest';
import { activeBody, blankChannel, channelAddress, channelBody, draftOf } from './channelDraft';

const view = (extra: Partial<ChannelView> = {}): ChannelView => ({
  id: 4,
  kind: 'whatsapp',
  channel: 'WHATSAPP',
  name: 'Support WhatsApp',
  departmentId: 2,
  active: true,
  settings: { phoneNumberId: '106540352242922', displayNumber: '+1 555 0100' },
  hasToken: true,
  hasAppSecret: true,
  webhookUrl: 'https://parley.example/api/channels/webhook/abc',
  verifyToken: 'f00d',
  lastError: null,
  lastErrorAt: null,
  lastEventAt: null,
  ...extra,
});

describe('the channel form', () => {
  it('CHANNEL a new WhatsApp number sends every field it was given, trimmed', () => {
    const d = {
      ...blankChannel('whatsapp'),
      name: 'Support',
      phoneNumberId: ' 106540352242922 ',
      accessToken: ' EAAG ',
      appSecret: 'app-secret',
    };
    expect(channelBody(d)).toEqual({
      name: 'Support',
      departmentId: null,
      active: true,
      settings: { kind: 'whatsapp', phoneNumberId: '106540352242922', accessToken: 'EAAG', appSecret: 'app-secret' },
    });
  });

  it('CHANNEL secrets are write-only: a stored connection opens with empty secrets, and empty ones are left out so the server keeps them', () => {
    const d = draftOf(view());
    expect(d).toMatchObject({ accessToken: '', appSecret: '', hasToken: true, hasAppSecret: true });
    expect(channelBody(d).settings).toEqual({
      kind: 'whatsapp',
      phoneNumberId: '106540352242922',
      displayNumber: '+1 555 0100',
    });
    expect(activeBody(view(), false)).toMatchObject({ active: false, departmentId: 2, name: 'Support WhatsApp' });
    const bot = draftOf(view({ kind: 'telegram', channel: 'TELEGRAM', settings: {} }));
    expect(channelBody(bot).settings).toEqual({ kind: 'telegram' });
    expect(channelBody({ ...bot, botToken: '123:abc' }).settings).toEqual({ kind: 'telegram', botToken: '123:abc' });
  });

  it('CHANNEL LINE and SMS send their own settings; their secrets are write-only too', () => {
    const line = { ...blankChannel('line'), name: 'LINE', channelSecret: ' abc ', channelAccessToken: 'tok' };
    expect(channelBody(line).settings).toEqual({ kind: 'line', channelSecret: 'abc', channelAccessToken: 'tok' });
    const storedLine = draftOf(view({ kind: 'line', channel: 'LINE_DM', settings: {} }));
    expect(channelBody(storedLine).settings).toEqual({ kind: 'line' });
    const sms = draftOf(
      view({ kind: 'sms', channel: 'SMS', settings: { accountSid: 'AC123', fromNumber: '+15550100100' } }),
    );
    expect(sms).toMatchObject({ accountSid: 'AC123', fromNumber: '+15550100100', authToken: '' });
    expect(channelBody(sms).settings).toEqual({ kind: 'sms', accountSid: 'AC123', fromNumber: '+15550100100' });
    expect(channelBody({ ...sms, authToken: 'secret-token' }).settings).toMatchObject({ authToken: 'secret-token' });
  });

  it('CHANNEL Messenger and Instagram send their account id and Meta secrets; stored secrets are kept', () => {
    const fb = { ...blankChannel('messenger'), name: 'Page', pageId: ' 1047 ', accessToken: 'EAA', appSecret: 's' };
    expect(channelBody(fb).settings).toEqual({ kind: 'messenger', pageId: '1047', accessToken: 'EAA', appSecret: 's' });
    const ig = draftOf(view({ kind: 'instagram', channel: 'IG_PM', settings: { igAccountId: '1784' } }));
    expect(channelBody(ig).settings).toEqual({ kind: 'instagram', igAccountId: '1784' });
    expect(channelAddress(view({ kind: 'messenger', settings: { pageId: '1047' } }))).toBe('1047');
    expect(channelAddress(view({ kind: 'instagram', settings: { igAccountId: '1784' } }))).toBe('1784');
  });

  it('CHANNEL X sends its user ID and its four keys, each write-only; the list names it by the user ID', () => {
    const x = {
      ...blankChannel('x'),
      name: 'Acme on X',
      userId: ' 1400 ',
      consumerKey: 'ck',
      consumerSecret: 'cs',
      accessToken: 'at',
      accessTokenSecret: 'ats',
    };
    expect(channelBody(x).settings).toEqual({
      kind: 'x',
      userId: '1400',
      consumerKey: 'ck',
      consumerSecret: 'cs',
      accessToken: 'at',
      accessTokenSecret: 'ats',
    });
    const stored = draftOf(view({ kind: 'x', channel: 'TW_DM', settings: { userId: '1400' } }));
    expect(channelBody(stored).settings).toEqual({ kind: 'x', userId: '1400' });
    expect(channelAddress(view({ kind: 'x', settings: { userId: '1400' } }))).toBe('1400');
  });

  it('CHANNEL the list names a number by its display number, else its ID', () => {
    expect(channelAddress(view())).toBe('+1 555 0100');
    expect(channelAddress(view({ settings: { phoneNumberId: '1065' } }))).toBe('1065');
    expect(channelAddress(view({ kind: 'telegram', settings: { username: 'acme_help_bot' } }))).toBe('@acme_help_bot');
    expect(channelAddress(view({ kind: 'telegram', settings: {} }))).toBe('');
    expect(channelAddress(view({ kind: 'sms', settings: { fromNumber: '+15550100100' } }))).toBe('+15550100100');
    expect(channelAddress(view({ kind: 'line', settings: {} }))).toBe('');
  });
});
