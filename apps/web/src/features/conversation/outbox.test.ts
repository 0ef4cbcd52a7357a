import { QUEUE_ID } from '@parley/contracts';
import { describe, expect, it } from 'vitest';
import { heldItems, nextToSend, Outbox, pendingFor, toInput } from './outbox';

class MemoryStorage {
  data = new Map<string, string>();
  getItem = (k: string) => this.data.get(k) ?? null;
  setItem = (k: string, v: string) => void this.data.set(k, v);
  removeItem = (k: string) => void this.data.delete(k);
}
const draft = (ticket_id: number, message: string) => ({
  ticket_id,
  message,
  type: 'text',
  reply_id: null,
  reply: null,
  files: [],
  fileInfo: [],
});

describe('outbox', () => {
  it('MSG-09 MSG-10 MSG-15 queue- ids, sent oldest first; a failed one holds the later ones of its conversation until Retry or Discard', () => {
    const box = new Outbox(new MemoryStorage());
    box.open(1, 2);
    const a = box.add(draft(7, 'one'), 1000);
    const b = box.add(draft(7, 'two'), 1000);
    const c = box.add(draft(8, 'three'), 999);
    expect(a.client_id).toMatch(QUEUE_ID);
    expect(new Set([a.client_id, b.client_id, c.client_id]).size).toBe(3);
    // Written in this order: the order holds even when the clock stands still or goes back.
    expect([a.at < b.at, b.at < c.at]).toEqual([true, true]);
    expect(nextToSend(box.all())?.client_id).toBe(a.client_id);
    box.fail(a.client_id, 'boom');
    // b was written after the failed a in the same conversation: it waits; ticket 8's c goes on.
    expect([...heldItems(box.all())]).toEqual([b.client_id]);
    expect(nextToSend(box.all())?.client_id).toBe(c.client_id);
    box.remove(c.client_id);
    expect(nextToSend(box.all())).toBeUndefined();
    // Retry sends a (the same queue- id) before b.
    box.retry(a.client_id);
    expect(heldItems(box.all()).size).toBe(0);
    expect(nextToSend(box.all())?.client_id).toBe(a.client_id);
    expect(toInput(a)).toMatchObject({ client_id: a.client_id, ticket_id: 7, message: 'one' });
    // Discarding a failed one lets the next go.
    box.fail(a.client_id, 'boom again');
    expect(nextToSend(box.all())).toBeUndefined();
    box.remove(a.client_id);
    expect(nextToSend(box.all())?.client_id).toBe(b.client_id);
  });

  it('MSG-10 a pending item the server already stored is not shown twice', () => {
    const box = new Outbox(null);
    box.open(1, 2);
    const a = box.add(draft(7, 'one'));
    const b = box.add(draft(7, 'two'));
    box.add(draft(8, 'other'));
    const stored = [{ client_id: a.client_id } as never];
    expect(pendingFor(box.all(), 7, stored).map((i) => i.message)).toEqual(['two']);
    expect(pendingFor(box.all(), 7, []).map((i) => i.client_id)).toEqual([a.client_id, b.client_id]);
  });

  it('MSG-11 the outbox survives a reload, per user', () => {
    const storage = new MemoryStorage();
    const first = new Outbox(storage);
    first.open(1, 2);
    first.add(draft(7, 'kept'));
    const again = new Outbox(storage);
    again.open(1, 2);
    expect(again.all().map((i) => i.message)).toEqual(['kept']);
    const other = new Outbox(storage);
    other.open(1, 3);
    expect(other.all()).toEqual([]);
    again.remove(again.all()[0]?.client_id ?? '');
    expect(storage.data.size).toBe(0);
  });

  it('MSG-12 CRYPT-06 a message a check refuses is failed at once, never sent; Retry fails again until the check passes', () => {
    const box = new Outbox(new MemoryStorage());
    box.open(1, 2);
    let key = false;
    const off = box.check((i) => (i.ticket_id === 7 && !key ? 'no key' : undefined));
    const refused: [string, string][] = [];
    box.onRefused((id, error) => refused.push([id, error]));
    // Whoever listens sees it failed in the change it is added in: it is never "sending".
    const seen: string[] = [];
    box.subscribe(() =>
      seen.push(
        box
          .all()
          .map((i) => i.status)
          .join(),
      ),
    );
    const a = box.add(draft(7, 'secret'));
    expect(a).toMatchObject({ status: 'failed', error: 'no key' });
    expect(seen).toEqual(['failed']);
    expect(refused).toEqual([[a.client_id, 'no key']]);
    expect(nextToSend(box.all())).toBeUndefined();
    // Another ticket is not checked.
    const b = box.add(draft(8, 'plain'));
    expect(b.status).toBe('sending');
    expect(nextToSend(box.all())?.client_id).toBe(b.client_id);
    box.remove(b.client_id);

    box.retry(a.client_id);
    expect(box.all()[0]).toMatchObject({ client_id: a.client_id, status: 'failed', error: 'no key' });
    expect(refused).toHaveLength(2);
    expect(nextToSend(box.all())).toBeUndefined();
    // A key is there now: the same queue- id goes out.
    key = true;
    box.retry(a.client_id);
    expect(box.all()[0]).toMatchObject({ client_id: a.client_id, status: 'sending', error: undefined });
    expect(nextToSend(box.all())?.client_id).toBe(a.client_id);
    expect(refused).toHaveLength(2);
    // A check removed no longer refuses.
    key = false;
    off();
    expect(box.add(draft(7, 'later')).status).toBe('sending');
  });
});
