import {
  Fieldset,
  Group,
  Input,
  NumberInput,
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
import { useMediaQuery } from '@mantine/hooks';
import type { Department } from '@parley/contracts';
import { useState } from 'react';
import { useWrite } from '../../lib/useWrite';
import { FormActions } from '../../ui/ModalFormCard';
import { toast } from '../../ui/toast';
import { mailboxesApi } from './api';
import {
  type GraphDraft,
  type MailboxDraft,
  mailboxBody,
  type ServerDraft,
  type ServerKind,
  withTls,
} from './mailboxDraft';
import { M } from './strings';

/** One mail server's fields in a fieldset named after it (IMAP or SMTP), so its labels are told apart. */
function ServerFields({
  kind,
  value,
  onChange,
}: {
  kind: ServerKind;
  value: ServerDraft;
  onChange(next: ServerDraft): void;
}) {
  const passwordHint = value.hasPassword ? M.passwordSaved : kind === 'smtp' ? M.smtpPasswordOptional : undefined;
  return (
    <Fieldset legend={kind === 'imap' ? M.imap : M.smtp} data-testid={`mailbox-${kind}`}>
      <Stack gap="xs">
        <TextInput
          label={M.host}
          placeholder={`${kind}.example.com`}
          value={value.host}
          onChange={(e) => onChange({ ...value, host: e.currentTarget.value })}
        />
        <Group align="flex-end" wrap="nowrap">
          <NumberInput
            w={110}
            label={M.port}
            min={1}
            max={65535}
            allowDecimal={false}
            allowNegative={false}
            hideControls
            value={value.port}
            onChange={(v) => onChange({ ...value, port: typeof v === 'number' ? v : '' })}
          />
          <Switch
            label={M.tls}
            checked={value.tls}
            onChange={(e) => onChange(withTls(kind, value, e.currentTarget.checked))}
            mb={6}
          />
        </Group>
        <TextInput
          label={M.user}
          autoComplete="off"
          value={value.user}
          onChange={(e) => onChange({ ...value, user: e.currentTarget.value })}
        />
        <PasswordInput
          label={M.password}
          description={passwordHint}
          autoComplete="new-password"
          value={value.password}
          onChange={(e) => onChange({ ...value, password: e.currentTarget.value })}
        />
      </Stack>
    </Fieldset>
  );
}

/** A Microsoft 365 mailbox's app: tenant, client id and the write-only client secret. */
function GraphFields({ value, onChange }: { value: GraphDraft; onChange(next: GraphDraft): void }) {
  return (
    <Fieldset legend={M.graph} data-testid="mailbox-graph">
      <Stack gap="xs">
        <Text size="sm" c="dimmed">
          {M.graphIntro}
        </Text>
        <TextInput
          label={M.tenantId}
          value={value.tenantId}
          placeholder="contoso.onmicrosoft.com"
          autoComplete="off"
          onChange={(e) => onChange({ ...value, tenantId: e.currentTarget.value })}
        />
        <TextInput
          label={M.clientId}
          value={value.clientId}
          placeholder="00000000-0000-0000-0000-000000000000"
          autoComplete="off"
          onChange={(e) => onChange({ ...value, clientId: e.currentTarget.value })}
        />
        <PasswordInput
          label={M.clientSecret}
          value={value.clientSecret}
          description={value.hasClientSecret ? M.secretSaved : undefined}
          autoComplete="new-password"
          onChange={(e) => onChange({ ...value, clientSecret: e.currentTarget.value })}
        />
      </Stack>
    </Fieldset>
  );
}

/**
 * Add or change a mailbox. Passwords are write-only: a stored one is never shown, and an empty field sends
 * nothing, so the server keeps it. The server's refusal shows under the form and nothing is saved.
 */
export function MailboxForm({
  draft,
  departments,
  forwarding,
  onClose,
  onSaved,
}: {
  draft: MailboxDraft;
  departments: Department[];
  /** Whether the server takes forwarded mail: a new forwarding-only mailbox needs it. */
  forwarding: boolean;
  onClose(): void;
  onSaved(): void;
}) {
  const [d, setD] = useState(draft);
  const narrow = useMediaQuery('(max-width: 480px)');
  const { run, busy, error, setError } = useWrite();
  const save = async () => {
    const r = mailboxBody(d);
    if ('error' in r) return setError(r.error);
    const call = () => (d.id ? mailboxesApi.update(d.id, r.body) : mailboxesApi.create(r.body));
    if (await run(call)) {
      toast({ message: M.saved });
      onSaved();
    }
  };
  const departmentOptions = [
    { value: '', label: M.noDepartment },
    ...departments.map((dep) => ({ value: String(dep.id), label: dep.name })),
  ];
  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <Stack>
        {/* A mailbox keeps its kind once it exists (the server answers 409 to a change). */}
        <Input.Wrapper
          label={M.kind}
          description={d.id ? M.kindFixedHint : forwarding ? undefined : M.forwardingOnlyUnavailable}
        >
          <SegmentedControl
            display="flex"
            mt={4}
            // Three ways do not fit side by side on a phone: one under the other there.
            orientation={narrow ? 'vertical' : 'horizontal'}
            data-testid="mailbox-kind"
            aria-label={M.kind}
            disabled={!!d.id}
            value={d.kind}
            onChange={(v) => setD({ ...d, kind: v === 'graph' || v === 'forwarding' ? v : 'imap' })}
            data={[
              { value: 'imap', label: M.kindImap },
              { value: 'forwarding', label: M.kindForwarding, disabled: !forwarding && d.kind !== 'forwarding' },
              { value: 'graph', label: M.kindGraph },
            ]}
          />
        </Input.Wrapper>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput
            label={M.address}
            type="email"
            placeholder="support@example.com"
            value={d.address}
            onChange={(e) => setD({ ...d, address: e.currentTarget.value })}
            data-autofocus
          />
          <TextInput
            label={M.name}
            description={M.nameHint}
            value={d.name}
            onChange={(e) => setD({ ...d, name: e.currentTarget.value })}
          />
          <Select
            label={M.department}
            description={M.departmentHint}
            data={departmentOptions}
            value={d.departmentId === null ? '' : String(d.departmentId)}
            allowDeselect={false}
            onChange={(v) => setD({ ...d, departmentId: v ? Number(v) : null })}
          />
          <Switch
            label={M.active}
            description={M.activeHint}
            checked={d.active}
            onChange={(e) => setD({ ...d, active: e.currentTarget.checked })}
            mt="lg"
          />
        </SimpleGrid>
        {d.kind === 'graph' ? (
          <GraphFields value={d.graph} onChange={(graph) => setD({ ...d, graph })} />
        ) : (
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            {d.kind === 'forwarding' ? (
              <Fieldset legend={M.imap} data-testid="mailbox-forwarding-only" style={{ alignSelf: 'start' }}>
                <Text size="sm">{M.forwardingOnlyIntro}</Text>
              </Fieldset>
            ) : (
              <ServerFields kind="imap" value={d.imap} onChange={(imap) => setD({ ...d, imap })} />
            )}
            <Stack gap="sm">
              <ServerFields kind="smtp" value={d.smtp} onChange={(smtp) => setD({ ...d, smtp })} />
              <Fieldset legend={M.dkim} data-testid="mailbox-dkim">
                <Stack gap="xs">
                  <TextInput
                    label={M.dkimSelector}
                    description={M.dkimSelectorHint}
                    placeholder="parley"
                    autoComplete="off"
                    value={d.dkimSelector}
                    onChange={(e) => setD({ ...d, dkimSelector: e.currentTarget.value })}
                  />
                  {/* Write-only like the passwords: a stored key is never shown. */}
                  <Textarea
                    label={M.dkimKey}
                    description={d.hasDkimKey ? M.dkimKeySaved : M.dkimKeyHint}
                    placeholder="-----BEGIN PRIVATE KEY-----"
                    autoComplete="off"
                    spellCheck={false}
                    autosize
                    minRows={2}
                    maxRows={6}
                    styles={{ input: { fontFamily: 'monospace', fontSize: 12 } }}
                    value={d.dkimPrivateKey}
                    onChange={(e) => setD({ ...d, dkimPrivateKey: e.currentTarget.value })}
                  />
                </Stack>
              </Fieldset>
            </Stack>
          </SimpleGrid>
        )}
        <FormActions
          error={error}
          testId="mailbox"
          cancelLabel={M.cancel}
          saveLabel={M.save}
          saving={busy}
          onCancel={onClose}
          onSave={() => void save()}
        />
      </Stack>
    </form>
  );
}
