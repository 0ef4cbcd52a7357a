import { describe, expect, it } from 'vitest';
import { type EmailDraft, replyFields, textToHtml } from './emailDraft';

const draft = (d: Partial<EmailDraft>): EmailDraft => ({
  ticketId: 7,
  to: 'pat@example.com',
  cc: '',
  subject: 'Re: Printer on fire',
  body: 'Hello',
  clientId: 'queue-ABCDEFGHIJ',
  replyId: null,
  ...d,
});

describe('the e-mail reply draft', () => {
  it('MSG-28 MSG-29 MSG-30 cc, toEmail and the main address are checked before sending, with the exact message', () => {
    expect(replyFields(draft({ cc: 'boss@example.com; bad@a.' }))).toEqual({
      error: 'Please check the email address. bad@a.',
    });
    expect(replyFields(draft({ to: 'pat@example.com, nobody' }))).toEqual({
      error: 'Please check the email address. nobody',
    });
    expect(replyFields(draft({ to: 'pat@' }))).toEqual({ error: 'Please check the email address. pat@' });
    // HTML with no toEmail needs the main address.
    expect(replyFields(draft({ to: '  ' }))).toEqual({ error: 'Please check the email address. ' });
    // cc is checked first, as the spec lists it.
    expect(replyFields(draft({ to: 'x', cc: 'y' }))).toEqual({ error: 'Please check the email address. y' });
  });

  it('MSG-25 MSG-26 a good draft becomes the reply call: the first To is the main address, the rest toEmail', () => {
    const r = replyFields(
      draft({
        to: 'pat@example.com; ops@example.com',
        cc: 'a@example.com, b@example.com',
        body: 'Hi <Pat>\n\nDone',
        replyId: 5,
      }),
    );
    expect(r).toEqual({
      fields: {
        ticket_id: '7',
        type: 'text/html',
        message: '<p>Hi &lt;Pat&gt;</p><p>Done</p>',
        email: 'pat@example.com',
        toEmail: 'ops@example.com',
        cc: 'a@example.com,b@example.com',
        title: 'Re: Printer on fire',
        client_id: 'queue-ABCDEFGHIJ',
        reply_id: '5',
      },
    });
  });

  it('MSG-26 plain text becomes escaped HTML paragraphs with its line breaks', () => {
    expect(textToHtml('a & b\nc\n\n\n<script>x</script>')).toBe(
      '<p>a &amp; b<br>c</p><p>&lt;script&gt;x&lt;/script&gt;</p>',
    );
  });
});
