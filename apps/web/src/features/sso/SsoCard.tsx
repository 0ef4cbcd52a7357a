import {
  Alert,
  Button,
  Code,
  Group,
  PasswordInput,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { SSO_STRINGS as S, type SsoConfigView, type SsoKind, type SsoUrls, type UserType } from '@parley/contracts';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useDepartments } from '../../lib/api/departments';
import { useWrite } from '../../lib/useWrite';
import { SettingsCard } from '../../ui/SettingsCard';
import { toast } from '../../ui/toast';
import { ssoApi, ssoKeys } from './api';

interface Draft {
  kind: SsoKind;
  enabled: boolean;
  ssoOnly: boolean;
  slug: string;
  jitType: UserType;
  jitDepartmentId: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: string;
  metadataXml: string;
  entryPoint: string;
  certificate: string;
  spEntityId: string;
}

const draftOf = (v: SsoConfigView | null): Draft => ({
  kind: v?.kind ?? 'oidc',
  enabled: v?.enabled ?? true,
  ssoOnly: v?.ssoOnly ?? false,
  slug: v?.slug ?? '',
  jitType: v?.jitType ?? 'agent',
  jitDepartmentId: v?.jitDepartmentId ? String(v.jitDepartmentId) : '',
  issuer: v?.oidc?.issuer ?? '',
  clientId: v?.oidc?.clientId ?? '',
  clientSecret: '',
  scopes: v?.oidc?.scopes ?? 'openid email profile',
  metadataXml: '',
  entryPoint: v?.saml?.entryPoint ?? '',
  certificate: '',
  spEntityId: v?.saml?.spEntityId ?? '',
});

const ROLES = [
  { value: 'agent', label: 'Agent' },
  { value: 'supervisor', label: 'Supervisor' },
  { value: 'admin', label: 'Admin' },
];

/** The addresses an admin copies into the identity provider, for the chosen protocol. */
function Addresses({ kind, urls }: { kind: SsoKind; urls: SsoUrls }) {
  const rows =
    kind === 'oidc'
      ? [[S.redirectUri, urls.oidcRedirect]]
      : [
          [S.acsUrl, urls.samlAcs],
          [S.spEntity, urls.samlEntityId],
        ];
  return (
    <Stack gap={4} data-testid="sso-addresses">
      <Text size="sm" fw={500}>
        {S.yourUrls}
      </Text>
      {[...rows, [S.signInLink, urls.start]].map(([label, value]) => (
        <Group key={label} gap="xs" wrap="nowrap" align="baseline">
          <Text size="sm" c="dimmed" style={{ flexShrink: 0 }}>
            {label}
          </Text>
          <Code style={{ wordBreak: 'break-all' }}>{value}</Code>
        </Group>
      ))}
    </Stack>
  );
}

/** Admin: Settings -> Single sign-on (OpenID Connect or SAML 2.0, just-in-time users, SSO only). */
export function SsoCard() {
  const q = useQuery({ queryKey: ssoKeys.config, queryFn: ssoApi.config });
  const departments = useDepartments();
  const [d, setD] = useState<Draft>(draftOf(null));
  const [tested, setTested] = useState<{ ok: boolean; detail: string } | null>(null);
  const write = useWrite({ invalidate: ssoKeys.config });
  const view = q.data?.data ?? null;
  useEffect(() => setD(draftOf(view)), [view]);
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => setD((x) => ({ ...x, [k]: v }));

  const save = async () => {
    const ok = await write.run(() =>
      ssoApi.save({
        kind: d.kind,
        enabled: d.enabled,
        ssoOnly: d.ssoOnly,
        slug: d.slug,
        jitType: d.jitType,
        jitDepartmentId: d.jitDepartmentId ? Number(d.jitDepartmentId) : null,
        ...(d.kind === 'oidc'
          ? {
              oidc: {
                issuer: d.issuer,
                clientId: d.clientId,
                scopes: d.scopes,
                ...(d.clientSecret ? { clientSecret: d.clientSecret } : {}),
              },
            }
          : {
              saml: {
                metadataXml: d.metadataXml,
                entryPoint: d.entryPoint,
                certificate: d.certificate,
                spEntityId: d.spEntityId,
              },
            }),
      }),
    );
    if (ok) toast({ message: S.saved, color: 'green' });
  };

  return (
    <SettingsCard
      title={S.title}
      hint={S.hint}
      error={write.error}
      testId="sso-card"
      footer={
        <Group justify="space-between">
          <Group>
            <Button onClick={save} loading={write.busy} data-testid="sso-save">
              {S.save}
            </Button>
            {view && (
              <Button
                variant="default"
                onClick={async () => setTested(await ssoApi.test().catch(() => ({ ok: false, detail: S.unreachable })))}
              >
                {S.test}
              </Button>
            )}
          </Group>
          {view && (
            <Button
              variant="subtle"
              color="red"
              onClick={async () => {
                if (await write.run(ssoApi.remove)) toast({ message: S.removed, color: 'green' });
              }}
            >
              {S.remove}
            </Button>
          )}
        </Group>
      }
    >
      <Stack>
        {tested && (
          <Alert color={tested.ok ? 'green' : 'red'} variant="light" role="status">
            {tested.detail}
          </Alert>
        )}
        <SegmentedControl
          aria-label={S.kind}
          value={d.kind}
          onChange={(v) => set('kind', v as SsoKind)}
          data={[
            { value: 'oidc', label: S.oidc },
            { value: 'saml', label: S.saml },
          ]}
        />
        <Switch label={S.enabled} checked={d.enabled} onChange={(e) => set('enabled', e.currentTarget.checked)} />
        <TextInput
          label={S.slug}
          description={S.slugHint}
          name="sso-slug"
          value={d.slug}
          onChange={(e) => set('slug', e.currentTarget.value)}
        />
        {d.kind === 'oidc' ? (
          <>
            <TextInput
              label={S.issuer}
              name="sso-issuer"
              placeholder="https://login.example.com/realms/acme"
              value={d.issuer}
              onChange={(e) => set('issuer', e.currentTarget.value)}
            />
            <TextInput
              label={S.clientId}
              name="sso-client-id"
              value={d.clientId}
              onChange={(e) => set('clientId', e.currentTarget.value)}
            />
            <PasswordInput
              label={S.clientSecret}
              name="sso-client-secret"
              description={view?.oidc?.hasClientSecret ? S.clientSecretKept : undefined}
              autoComplete="off"
              value={d.clientSecret}
              onChange={(e) => set('clientSecret', e.currentTarget.value)}
            />
            <TextInput label={S.scopes} value={d.scopes} onChange={(e) => set('scopes', e.currentTarget.value)} />
          </>
        ) : (
          <>
            <Textarea
              label={S.metadata}
              description={S.metadataHint}
              name="sso-metadata"
              autosize
              minRows={3}
              maxRows={10}
              styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 12 } }}
              value={d.metadataXml}
              onChange={(e) => set('metadataXml', e.currentTarget.value)}
            />
            <TextInput
              label={S.entryPoint}
              value={d.entryPoint}
              onChange={(e) => set('entryPoint', e.currentTarget.value)}
            />
            <Textarea
              label={S.certificate}
              description={view?.saml?.certificates ? S.certificatesKept(view.saml.certificates) : undefined}
              autosize
              minRows={2}
              maxRows={6}
              value={d.certificate}
              onChange={(e) => set('certificate', e.currentTarget.value)}
            />
            <TextInput
              label={S.spEntityId}
              placeholder={q.data?.urls.samlEntityId}
              value={d.spEntityId}
              onChange={(e) => set('spEntityId', e.currentTarget.value)}
            />
          </>
        )}
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <Select
            label={S.jitType}
            data={ROLES}
            value={d.jitType}
            allowDeselect={false}
            onChange={(v) => set('jitType', (v ?? 'agent') as UserType)}
          />
          <Select
            label={S.jitDepartment}
            data={[
              { value: '', label: S.noDepartment },
              ...(departments.data ?? []).map((x) => ({ value: String(x.id), label: x.name })),
            ]}
            value={d.jitDepartmentId}
            allowDeselect={false}
            onChange={(v) => set('jitDepartmentId', v ?? '')}
          />
        </SimpleGrid>
        <Switch
          label={S.ssoOnly}
          description={S.ssoOnlyHint}
          checked={d.ssoOnly}
          onChange={(e) => set('ssoOnly', e.currentTarget.checked)}
        />
        {q.data && <Addresses kind={d.kind} urls={q.data.urls} />}
      </Stack>
    </SettingsCard>
  );
}
