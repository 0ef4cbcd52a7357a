import { Alert, Button, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import type { EncryptionKeyItem } from '@parley/contracts';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { encryptionApi } from '../../lib/api/encryption';
import { formatDateTime } from '../../lib/dates';
import { aesKeyId, generateAesSecret, generateRsaPair, publicOf, rsaKeyId, validAesSecret } from '../../lib/e2eCrypto';
import { type StoredEncryptionKey, saveStoredKey, storedKey } from '../../lib/encryptionKey';
import { encryptionKeysKey } from '../../lib/queryKeys';
import { useMe } from '../../lib/session';
import { useWrite } from '../../lib/useWrite';
import { CopyLine } from '../../ui/CopyLine';
import { SettingsCard } from '../../ui/SettingsCard';
import { ENCRYPTION_CARD_STRINGS as S } from './strings';

/** The fingerprint of what this browser holds (the key id envelopes name), or '' for none. */
async function fingerprintOf(k: StoredEncryptionKey | null): Promise<string> {
  if (!k) return '';
  return k.method === 'aes' ? aesKeyId(k) : rsaKeyId(await publicOf(k.privateKey));
}

/**
 * Settings -> Encryption (CRYPT-03, CRYPT-04, CRYPT-11): the key on this browser (create or import the team's
 * AES key, create or rotate one's RSA key pair, remove it), and the keys the team has published.
 */
export function EncryptionCard() {
  const { accountId } = useMe();
  const [key, setKey] = useState<StoredEncryptionKey | null>(() => storedKey(accountId));
  const [kid, setKid] = useState('');
  const [shown, setShown] = useState<{ key: string; iv: string } | null>(null);
  const [importing, setImporting] = useState(false);
  const [draft, setDraft] = useState({ key: '', iv: '' });
  const [note, setNote] = useState<string | null>(null);
  const keys = useQuery({ queryKey: encryptionKeysKey, queryFn: encryptionApi.keys });
  const write = useWrite({ invalidate: encryptionKeysKey });

  useEffect(() => {
    let live = true;
    void fingerprintOf(key)
      .catch(() => '')
      .then((f) => live && setKid(f));
    return () => {
      live = false;
    };
  }, [key]);

  /** Keeps the key here, then publishes what may be published (a public key, a fingerprint). */
  const keep = (next: StoredEncryptionKey, publish: () => Promise<unknown>, done: string) =>
    write.run(async () => {
      if (!saveStoredKey(accountId, next)) throw new Error(S.storageBlocked);
      setKey(next);
      setNote(done);
      await publish();
    });

  const keepAes = async (s: { key: string; iv: string }) => {
    if (!validAesSecret(s)) {
      write.setError(S.badAes);
      return false;
    }
    const fp = await aesKeyId(s);
    return keep(
      { method: 'aes', ...s },
      () => encryptionApi.publish({ method: 'aes', key_type: 'fingerprint', key_value: fp }),
      S.created,
    );
  };
  const createAes = async () => {
    const s = generateAesSecret();
    if (await keepAes(s)) setShown(s);
  };
  const importAes = async () => {
    const s = { key: draft.key.trim(), iv: draft.iv.trim() };
    if (await keepAes(s)) {
      setImporting(false);
      setDraft({ key: '', iv: '' });
      setShown(null);
    }
  };
  const [making, setMaking] = useState(false);
  const createRsa = async () => {
    setMaking(true);
    try {
      const pair = await generateRsaPair();
      const previous = key?.method === 'rsa' ? [key.privateKey, ...(key.previous ?? [])].slice(0, 10) : [];
      await keep(
        { method: 'rsa', privateKey: pair.privateKey, ...(previous.length ? { previous } : {}) },
        () => encryptionApi.publish({ method: 'rsa', key_type: 'public', key_value: pair.publicKey }),
        previous.length ? S.rotated : S.created,
      );
      setShown(null);
    } finally {
      setMaking(false);
    }
  };
  const forget = () => {
    if (!window.confirm(S.forgetConfirm)) return;
    saveStoredKey(accountId, null);
    setKey(null);
    setShown(null);
    setNote(null);
  };

  const status = !key ? S.none : key.method === 'aes' ? S.holdsAes(kid) : S.holdsRsa(kid);
  return (
    <SettingsCard
      title={S.title}
      hint={S.hint}
      error={write.error}
      errorTestId="encryption-error"
      testId="encryption-card"
    >
      <Stack gap="md">
        <Text size="sm" fw={500} data-testid="encryption-status" data-method={key?.method ?? ''} data-kid={kid}>
          {status}
        </Text>
        {key?.method === 'rsa' && key.previous && (
          <Text size="xs" c="dimmed">
            {S.olderKeys(key.previous.length)}
          </Text>
        )}
        {note && (
          <Alert color="green" py={6} data-testid="encryption-note">
            {note}
          </Alert>
        )}

        <Stack gap={6}>
          <Title order={4} size="h5">
            {S.aesTitle}
          </Title>
          <Text size="sm" c="dimmed">
            {S.aesHint}
          </Text>
          {shown && (
            <Stack gap={6} data-testid="encryption-aes-shown">
              <CopyLine
                label={S.keyLabel}
                copyLabel={S.copyKey}
                copyText={S.copy}
                copiedLabel={S.copied}
                value={shown.key}
                testId="encryption-aes-key"
              />
              <CopyLine
                label={S.ivLabel}
                copyLabel={S.copyIv}
                copyText={S.copy}
                copiedLabel={S.copied}
                value={shown.iv}
                testId="encryption-aes-iv"
              />
            </Stack>
          )}
          {importing ? (
            <Stack gap={6}>
              <TextInput
                label={S.keyLabel}
                value={draft.key}
                onChange={(e) => setDraft({ ...draft, key: e.currentTarget.value })}
                autoComplete="off"
              />
              <TextInput
                label={S.ivLabel}
                value={draft.iv}
                onChange={(e) => setDraft({ ...draft, iv: e.currentTarget.value })}
                autoComplete="off"
              />
              <Group gap="xs">
                <Button size="sm" onClick={() => void importAes()} loading={write.busy}>
                  {S.save}
                </Button>
                <Button size="sm" variant="default" onClick={() => setImporting(false)}>
                  {S.cancel}
                </Button>
              </Group>
            </Stack>
          ) : (
            <Group gap="xs">
              <Button size="sm" variant="default" onClick={() => void createAes()} disabled={write.busy}>
                {S.createAes}
              </Button>
              <Button size="sm" variant="default" onClick={() => setImporting(true)}>
                {S.importAes}
              </Button>
            </Group>
          )}
        </Stack>

        <Stack gap={6}>
          <Title order={4} size="h5">
            {S.rsaTitle}
          </Title>
          <Text size="sm" c="dimmed">
            {S.rsaHint}
          </Text>
          <Group gap="xs">
            <Button size="sm" variant="default" onClick={() => void createRsa()} loading={making || write.busy}>
              {key?.method === 'rsa' ? S.rotateRsa : S.createRsa}
            </Button>
            {key && (
              <Button size="sm" variant="subtle" color="red" onClick={forget}>
                {S.forget}
              </Button>
            )}
          </Group>
        </Stack>

        <Stack gap={6}>
          <Title order={4} size="h5">
            {S.teamTitle}
          </Title>
          <TeamKeys rows={keys.data ?? []} />
        </Stack>
      </Stack>
    </SettingsCard>
  );
}

function TeamKeys({ rows }: { rows: EncryptionKeyItem[] }) {
  if (rows.length === 0)
    return (
      <Text size="sm" c="dimmed">
        {S.teamEmpty}
      </Text>
    );
  return (
    <Table.ScrollContainer minWidth={420}>
      <Table data-testid="encryption-team-keys">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{S.user}</Table.Th>
            <Table.Th>{S.method}</Table.Th>
            <Table.Th>{S.fingerprint}</Table.Th>
            <Table.Th>{S.updated}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((k) => (
            <Table.Tr key={`${k.username}-${k.method}`}>
              <Table.Td>{k.name}</Table.Td>
              <Table.Td>{k.method.toUpperCase()}</Table.Td>
              <Table.Td>
                <code>{k.kid}</code>
              </Table.Td>
              <Table.Td>{formatDateTime(k.updated_at)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
