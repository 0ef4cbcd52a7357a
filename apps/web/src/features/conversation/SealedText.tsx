import { Group, Text } from '@mantine/core';
import { IconLock, IconLockExclamation } from '@tabler/icons-react';
import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';
import { type Decrypted, decryptText } from '../../lib/e2eCrypto';
import { encryptionKeyName, readersOf, storedKey } from '../../lib/encryptionKey';
import { useMe } from '../../lib/session';
import { CONVERSATION_STRINGS as S } from './strings';

/** Decrypted texts by key and envelope: a message is decrypted once per key, not on every render. */
const done = new Map<string, Decrypted>();
const DONE_MAX = 1000;

/** The raw key entry of the account on this browser, followed across tabs and the settings card. */
function useKeyEntry(accountId: number): string {
  const subscribe = useCallback(
    (l: () => void) => {
      const on = (e: StorageEvent) => {
        if (e.key === null || e.key === encryptionKeyName(accountId)) l();
      };
      window.addEventListener('storage', on);
      return () => window.removeEventListener('storage', on);
    },
    [accountId],
  );
  return useSyncExternalStore(subscribe, () => {
    try {
      return localStorage.getItem(encryptionKeyName(accountId)) ?? '';
    } catch {
      return '';
    }
  });
}

/** CRYPT-11: the text of an encrypted message, decrypted with this browser's key, or why it cannot be read. */
export function useDecrypted(text: string): Decrypted | null {
  const { accountId } = useMe();
  const entry = useKeyEntry(accountId);
  const id = `${entry}\n${text}`;
  const [result, setResult] = useState<{ id: string; d: Decrypted } | null>(() => {
    const d = done.get(id);
    return d ? { id, d } : null;
  });
  useEffect(() => {
    const known = done.get(id);
    if (known) {
      setResult({ id, d: known });
      return;
    }
    let live = true;
    void decryptText(text, readersOf(storedKey(accountId))).then((d) => {
      if (done.size >= DONE_MAX) done.delete(done.keys().next().value as string);
      done.set(id, d);
      if (live) setResult({ id, d });
    });
    return () => {
      live = false;
    };
  }, [id, text, accountId]);
  return result?.id === id ? result.d : null;
}

/** An encrypted message's body: the text once decrypted (with a lock), or a clear line saying why not. */
export function SealedText({ text, compact = false }: { text: string; compact?: boolean }) {
  const d = useDecrypted(text);
  if (d && (d.kind === 'text' || d.kind === 'plain'))
    return (
      <Text
        size={compact ? 'xs' : 'sm'}
        c={compact ? 'dimmed' : undefined}
        lineClamp={compact ? 2 : undefined}
        style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}
        data-testid={compact ? undefined : 'message-text'}
        data-encrypted="true"
      >
        {!compact && <IconLock size={12} aria-label={S.sealedLabel} style={{ marginRight: 4, verticalAlign: -1 }} />}
        {d.text}
      </Text>
    );
  const why = !d
    ? S.sealedOpening
    : d.kind === 'noKey'
      ? S.noKey
      : d.kind === 'wrongKey'
        ? S.sealedWrongKey
        : S.sealedUnreadable;
  return (
    <Group gap={4} wrap="nowrap" data-testid="message-sealed" data-state={d?.kind ?? 'opening'}>
      <IconLockExclamation size={14} aria-hidden style={{ flexShrink: 0 }} />
      <Text size={compact ? 'xs' : 'sm'} c="dimmed" fs="italic">
        {why}
      </Text>
    </Group>
  );
}
