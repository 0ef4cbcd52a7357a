import { Anchor, Badge, Button, Group, Paper, SegmentedControl, Select, Stack, Text, TextInput } from '@mantine/core';
import { type ApiTokenItem, type ApiTokenKind, type ApiTokenScope, INTEGRATION_STRINGS as I } from '@parley/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { formatDateTime } from '../../lib/dates';
import { integrationKeys } from '../../lib/queryKeys';
import { useWrite } from '../../lib/useWrite';
import { SettingsCard } from '../../ui/SettingsCard';
import { integrationsApi } from './api';
import { ShownOnce } from './ShownOnce';

/** One token: its name, kind and access, its first characters, who made it, when, and when it was last used. */
function TokenRow({ t, busy, onRevoke }: { t: ApiTokenItem; busy: boolean; onRevoke(): void }) {
  return (
    <Paper withBorder p="sm" radius="sm" data-testid="api-token-row">
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <Stack gap={4} style={{ minWidth: 0 }}>
          <Group gap="xs">
            <Text fw={600} size="sm">
              {t.name}
            </Text>
            <Badge size="sm" variant="light" color={t.kind === 'account' ? 'grape' : 'blue'}>
              {t.kind === 'account' ? I.account : I.personal}
            </Badge>
            <Badge size="sm" variant="dot" color={t.scopes.includes('write') ? 'orange' : 'gray'}>
              {t.scopes.includes('write') ? I.scopeWrite : I.scopeRead}
            </Badge>
          </Group>
          <Text size="xs" c="dimmed">
            {t.hint}… · {t.userName} · {I.created} {formatDateTime(t.createdAt)} · {I.lastUsed}{' '}
            {t.lastUsedAt === null ? I.never : formatDateTime(t.lastUsedAt)}
          </Text>
        </Stack>
        <Button
          size="xs"
          variant="light"
          color="red"
          loading={busy}
          onClick={onRevoke}
          style={{ flexShrink: 0 }}
          aria-label={`${I.revoke} ${t.name}`}
        >
          {I.revoke}
        </Button>
      </Group>
    </Paper>
  );
}

/**
 * Settings -> API and webhooks: the caller's API tokens. Everyone makes personal tokens (acting as
 * themselves); admins also account tokens, and see the account's. A new token is shown once, with Copy.
 */
export function ApiTokensCard({ admin }: { admin: boolean }) {
  const list = useQuery({ queryKey: integrationKeys.tokens, queryFn: integrationsApi.tokens });
  const write = useWrite({ invalidate: integrationKeys.tokens });
  const [name, setName] = useState('');
  const [scope, setScope] = useState<ApiTokenScope>('read');
  const [kind, setKind] = useState<ApiTokenKind>('personal');
  const [shown, setShown] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<number | null>(null);

  const create = async () => {
    if (!name.trim()) return write.setError(I.tokenNameRequired);
    let token = '';
    const ok = await write.run(async () => {
      token = (await integrationsApi.createToken({ name: name.trim(), scope, kind })).token;
    });
    if (ok) {
      setShown(token);
      setName('');
    }
  };
  const revoke = async (id: number) => {
    setRevoking(id);
    await write.run(() => integrationsApi.revokeToken(id));
    setRevoking(null);
  };

  return (
    <SettingsCard
      title={I.tokensTitle}
      hint={I.tokensHint}
      error={write.error}
      testId="api-tokens-card"
      aside={
        <Anchor component={Link} to="/api_reference" size="sm">
          {I.apiReference}
        </Anchor>
      }
    >
      {shown && (
        <ShownOnce
          intro={I.shownOnce}
          label={I.tokenLabel}
          value={shown}
          testId="api-token-secret"
          onDone={() => setShown(null)}
        />
      )}
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void create();
        }}
      >
        <Group align="flex-end" gap="sm">
          <TextInput
            label={I.tokenName}
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            maxLength={100}
            style={{ flex: '1 1 200px' }}
            data-testid="api-token-name"
          />
          <Select
            label={I.scopes}
            value={scope}
            onChange={(v) => setScope((v as ApiTokenScope) ?? 'read')}
            data={[
              { value: 'read', label: I.scopeRead },
              { value: 'write', label: I.scopeWrite },
            ]}
            allowDeselect={false}
            w={170}
            data-testid="api-token-scope"
          />
          {admin && (
            <Stack gap={4}>
              <Text size="sm" fw={500}>
                {I.tokenKind}
              </Text>
              <SegmentedControl
                value={kind}
                onChange={(v) => setKind(v as ApiTokenKind)}
                data={[
                  { value: 'personal', label: I.personal },
                  { value: 'account', label: I.account },
                ]}
                data-testid="api-token-kind"
              />
            </Stack>
          )}
          <Button type="submit" loading={write.busy && revoking === null} data-testid="api-token-create">
            {I.newToken}
          </Button>
        </Group>
      </form>
      <Stack gap="xs">
        {list.data?.length === 0 && (
          <Text size="sm" c="dimmed">
            {I.noTokens}
          </Text>
        )}
        {list.data?.map((t) => (
          <TokenRow key={t.id} t={t} busy={revoking === t.id} onRevoke={() => void revoke(t.id)} />
        ))}
      </Stack>
    </SettingsCard>
  );
}
