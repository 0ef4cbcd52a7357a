import type { Mailbox } from '@parley/contracts';
import { describe, expect, it } from 'vitest';
import { activeBody, blankMailbox, draftOf, mailboxBody, serverSummary, withTls } from './mailboxDraft';
import { M } from './strings';

const stored: Mailbox = {
  id: 7,
  address: 'help@acme.test',
  name: 'Acme Support',
  departmentId: 3,
  active: true,
  kind: 'imap',
  imap: { host: 'imap.acme.test', port: 993, tls: true, user: 'help', hasPassword: true },
  smtp: { host: 'smtp.acme.test', port: 587, tls: false, user: 'help', hasPassword: false },
  graph: null,
  dkimSelector: 'parley',
  hasDkimKey: true,
  forwardingAddress: null,
  lastError: null,
  lastErrorAt: null,
  lastFetchAt: null,
  createdAt: 1,
  updatedAt: 1,
};

describe('the mailbox form', () => {
  it('an edit with empty passwords sends none, so the stored ones are kept', () => {
    const r = mailboxBody(draftOf(stored));
    expect(r).toEqual({
      body: {
        address: 'help@acme.test',
        name: 'Acme Support',
        departmentId: 3,
        active: true,
        imap: { host: 'imap.acme.test', port: 993, tls: true, user: 'help' },
        smtp: { host: 'smtp.acme.test', port: 587, tls: false, user: 'help' },
        dkimSelector: 'parley',
      },
    });
    expect(JSON.stringify(r)).not.toContain('password');
    expect(JSON.stringify(r)).not.toContain('dkimPrivateKey');
  });

  it('EMAIL a typed DKIM key is sent trimmed; the active switch sends the selector and no key', () => {
    const d = draftOf(stored);
    d.dkimPrivateKey = '\n-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n ';
    const r = mailboxBody(d);
    expect('body' in r && 'imap' in r.body && r.body.dkimPrivateKey).toBe(
      '-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----',
    );
    const b = activeBody(stored, false);
    expect('imap' in b && b.dkimSelector).toBe('parley');
    expect('dkimPrivateKey' in b).toBe(false);
  });

  it('a typed password is sent, trimmed fields too', () => {
    const d = draftOf(stored);
    d.address = '  help@acme.test ';
    d.imap = { ...d.imap, host: ' imap.acme.test ', password: ' pass word ' };
    const r = mailboxBody(d);
    expect('body' in r && 'imap' in r.body && r.body.imap).toEqual({
      host: 'imap.acme.test',
      port: 993,
      tls: true,
      user: 'help',
      password: ' pass word ',
    });
    expect('body' in r && r.body.address).toBe('help@acme.test');
  });

  it('a port outside 1..65535 or left empty is refused before any call, in the server words', () => {
    for (const port of ['' as const, 0, 65536, 1.5]) {
      const d = blankMailbox();
      d.smtp = { ...d.smtp, port };
      expect(mailboxBody(d)).toEqual({ error: M.badPort });
    }
  });

  it('GRAPH_EMAIL a Microsoft 365 mailbox sends its app, the secret only when typed, and no IMAP/SMTP', () => {
    const graph: Mailbox = {
      ...stored,
      kind: 'graph',
      graph: {
        tenantId: 'contoso.onmicrosoft.com',
        clientId: 'abc-123',
        hasClientSecret: true,
        subscriptionExpiresAt: null,
      },
    };
    const kept = mailboxBody(draftOf(graph));
    expect(kept).toEqual({
      body: {
        kind: 'graph',
        address: 'help@acme.test',
        name: 'Acme Support',
        departmentId: 3,
        active: true,
        graph: { tenantId: 'contoso.onmicrosoft.com', clientId: 'abc-123' },
      },
    });
    const d = draftOf(graph);
    d.graph = { ...d.graph, clientSecret: 's3cret' };
    expect('body' in mailboxBody(d) && JSON.stringify(mailboxBody(d))).toContain('"clientSecret":"s3cret"');
    const active = activeBody(graph, false);
    expect(active).toMatchObject({ kind: 'graph', active: false });
    expect(JSON.stringify(active)).not.toContain('imap');
    expect(JSON.stringify(active)).not.toContain('clientSecret');
  });

  it('EMAIL a forwarding-only mailbox sends no IMAP side (not even what its fields held), only its SMTP; its switch keeps the kind', () => {
    const draft = {
      ...blankMailbox(),
      kind: 'forwarding' as const,
      address: ' fwd@acme.test ',
      imap: { ...blankMailbox().imap, host: 'left.over', port: '' as const, password: 'typed before' },
      smtp: { ...blankMailbox().smtp, host: 'smtp.acme.test', user: 'fwd', password: 's' },
    };
    expect(mailboxBody(draft)).toEqual({
      body: {
        kind: 'forwarding',
        address: 'fwd@acme.test',
        name: '',
        departmentId: null,
        active: true,
        smtp: { host: 'smtp.acme.test', port: 465, tls: true, user: 'fwd', password: 's' },
        dkimSelector: '',
      },
    });
    expect(mailboxBody({ ...draft, smtp: { ...draft.smtp, port: '' } })).toEqual({ error: M.badPort });
    const fwd: Mailbox = {
      ...stored,
      kind: 'forwarding',
      imap: { host: '', port: 0, tls: true, user: '', hasPassword: false },
    };
    expect(draftOf(fwd).imap.host).toBe('');
    expect(activeBody(fwd, false)).toEqual({
      kind: 'forwarding',
      address: 'help@acme.test',
      name: 'Acme Support',
      departmentId: 3,
      active: false,
      smtp: { host: 'smtp.acme.test', port: 587, tls: false, user: 'help' },
      dkimSelector: 'parley',
    });
  });

  it('TLS moves a usual port to the other mode, and leaves a typed one', () => {
    const d = blankMailbox();
    expect(withTls('imap', d.imap, false).port).toBe(143);
    expect(withTls('smtp', d.smtp, false).port).toBe(587);
    expect(withTls('smtp', { ...d.smtp, tls: false, port: 587 }, true).port).toBe(465);
    expect(withTls('imap', { ...d.imap, port: 10993 }, false).port).toBe(10993);
  });

  it('the active switch sends the stored mailbox with no password', () => {
    const b = activeBody(stored, false);
    expect(b.active).toBe(false);
    expect('imap' in b && b.imap).toEqual({ host: 'imap.acme.test', port: 993, tls: true, user: 'help' });
    expect(JSON.stringify(b)).not.toContain('password');
  });

  it('PLAN-19 PLAN-20 the plan limit reads "3 of 5 mailboxes"; unlimited says so', () => {
    expect(M.limit(3, 5)).toBe('3 of 5 mailboxes');
    expect(M.limit(1, null)).toBe('1 mailbox (no limit on your plan)');
    expect(serverSummary(stored.imap)).toBe('imap.acme.test:993, TLS');
    expect(serverSummary(stored.smtp)).toBe('smtp.acme.test:587');
  });
});
