import { Input, PasswordInput, Radio, Select, SimpleGrid, Stack, Switch, Text, TextInput } from '@mantine/core';
import { type ChannelKind, type Department, KIND_NAMES } from '@parley/contracts';
import { useState } from 'react';
import { useWrite } from '../../lib/useWrite';
import { FormActions } from '../../ui/ModalFormCard';
import { toast } from '../../ui/toast';
import { channelsApi } from './api';
import { type ChannelDraft, channelBody } from './channelDraft';
import { C } from './strings';

/**
 * Add or change a channel. The provider is chosen among the kinds the plan allows (a stored channel keeps
 * its own). Secrets are write-only: a stored one is never shown, and an empty field sends nothing, so the
 * server keeps it. The server's refusal (its `description`) shows under the form and nothing is saved.
 */
export function ChannelForm({
  draft,
  allowed,
  departments,
  onClose,
  onSaved,
}: {
  draft: ChannelDraft;
  allowed: ChannelKind[];
  departments: Department[];
  onClose(): void;
  onSaved(): void;
}) {
  const [d, setD] = useState(draft);
  const { run, busy, error } = useWrite();
  const save = async () => {
    const body = channelBody(d);
    if (await run(() => (d.id ? channelsApi.update(d.id, body) : channelsApi.create(body)))) {
      toast({ message: C.saved });
      onSaved();
    }
  };
  const kinds = d.id ? [d.kind] : allowed;
  const departmentOptions = [
    { value: '', label: C.noDepartment },
    ...departments.map((dep) => ({ value: String(dep.id), label: dep.name })),
  ];
  /** A write-only field: a stored secret is never shown, the placeholder says one is stored. */
  const secretField = (
    key:
      | 'accessToken'
      | 'appSecret'
      | 'botToken'
      | 'channelSecret'
      | 'channelAccessToken'
      | 'authToken'
      | 'consumerKey'
      | 'consumerSecret'
      | 'accessTokenSecret',
    label: string,
    hint: string,
    stored: boolean,
  ) => (
    <PasswordInput
      label={label}
      description={stored ? C.secretStored : hint}
      placeholder={stored ? C.secretStored : undefined}
      autoComplete="new-password"
      value={d[key]}
      onChange={(e) => setD({ ...d, [key]: e.currentTarget.value })}
      data-testid={`channel-${key.replace(/[A-Z]/g, (ch) => `-${ch.toLowerCase()}`)}`}
    />
  );
  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
      data-testid="channel-form"
    >
      <Stack>
        {/* Radios that wrap (six providers do not fit one row on a phone); one provider (a stored channel keeps
            its own) is named plainly, not as a greyed control. */}
        {kinds.length > 1 ? (
          <Radio.Group label={C.provider} value={d.kind} onChange={(v) => setD({ ...d, kind: v as ChannelKind })}>
            <SimpleGrid
              cols={{ base: 2, sm: Math.min(kinds.length, 3) }}
              spacing="xs"
              mt={6}
              data-testid="channel-kind"
            >
              {kinds.map((k) => (
                <Radio key={k} value={k} label={KIND_NAMES[k]} />
              ))}
            </SimpleGrid>
          </Radio.Group>
        ) : (
          <Input.Wrapper label={C.provider} description={d.id ? C.providerFixedHint : undefined}>
            <Text size="sm" mt={4} data-testid="channel-kind">
              {KIND_NAMES[d.kind]}
            </Text>
          </Input.Wrapper>
        )}
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput
            label={C.name}
            description={C.nameHint}
            value={d.name}
            onChange={(e) => setD({ ...d, name: e.currentTarget.value })}
            data-testid="channel-name"
            data-autofocus
          />
          <Select
            label={C.department}
            description={C.departmentHint}
            data={departmentOptions}
            value={d.departmentId === null ? '' : String(d.departmentId)}
            allowDeselect={false}
            onChange={(v) => setD({ ...d, departmentId: v ? Number(v) : null })}
          />
        </SimpleGrid>
        {d.kind === 'whatsapp' && (
          <SimpleGrid cols={{ base: 1, sm: 2 }} data-testid="channel-whatsapp">
            <TextInput
              label={C.phoneNumberId}
              description={C.phoneNumberIdHint}
              inputMode="numeric"
              autoComplete="off"
              value={d.phoneNumberId}
              onChange={(e) => setD({ ...d, phoneNumberId: e.currentTarget.value })}
              data-testid="channel-phone-number-id"
            />
            <TextInput
              label={C.displayNumber}
              description={C.displayNumberHint}
              autoComplete="off"
              value={d.displayNumber}
              onChange={(e) => setD({ ...d, displayNumber: e.currentTarget.value })}
              data-testid="channel-display-number"
            />
            {secretField('accessToken', C.accessToken, C.accessTokenHint, d.hasToken)}
            {secretField('appSecret', C.appSecret, C.appSecretHint, d.hasAppSecret)}
          </SimpleGrid>
        )}
        {(d.kind === 'messenger' || d.kind === 'instagram') && (
          <SimpleGrid cols={{ base: 1, sm: 2 }} data-testid={`channel-${d.kind}`}>
            {d.kind === 'messenger' ? (
              <TextInput
                label={C.pageId}
                description={C.pageIdHint}
                inputMode="numeric"
                autoComplete="off"
                value={d.pageId}
                onChange={(e) => setD({ ...d, pageId: e.currentTarget.value })}
                data-testid="channel-page-id"
              />
            ) : (
              <TextInput
                label={C.igAccountId}
                description={C.igAccountIdHint}
                inputMode="numeric"
                autoComplete="off"
                value={d.igAccountId}
                onChange={(e) => setD({ ...d, igAccountId: e.currentTarget.value })}
                data-testid="channel-ig-account-id"
              />
            )}
            {secretField('accessToken', C.pageAccessToken, C.pageAccessTokenHint, d.hasToken)}
            {secretField('appSecret', C.appSecret, C.appSecretHint, d.hasAppSecret)}
          </SimpleGrid>
        )}
        {d.kind === 'telegram' && secretField('botToken', C.botToken, C.botTokenHint, d.hasToken)}
        {d.kind === 'line' && (
          <SimpleGrid cols={{ base: 1, sm: 2 }} data-testid="channel-line">
            {secretField('channelSecret', C.channelSecret, C.channelSecretHint, d.hasAppSecret)}
            {secretField('channelAccessToken', C.channelAccessToken, C.channelAccessTokenHint, d.hasToken)}
          </SimpleGrid>
        )}
        {d.kind === 'sms' && (
          <SimpleGrid cols={{ base: 1, sm: 2 }} data-testid="channel-sms">
            <TextInput
              label={C.accountSid}
              description={C.accountSidHint}
              autoComplete="off"
              spellCheck={false}
              value={d.accountSid}
              onChange={(e) => setD({ ...d, accountSid: e.currentTarget.value })}
              data-testid="channel-account-sid"
            />
            <TextInput
              label={C.fromNumber}
              description={C.fromNumberHint}
              placeholder="+1 555 010 0100"
              inputMode="tel"
              autoComplete="off"
              value={d.fromNumber}
              onChange={(e) => setD({ ...d, fromNumber: e.currentTarget.value })}
              data-testid="channel-from-number"
            />
            {secretField('authToken', C.authToken, C.authTokenHint, d.hasToken)}
          </SimpleGrid>
        )}
        {d.kind === 'x' && (
          <SimpleGrid cols={{ base: 1, sm: 2 }} data-testid="channel-x">
            <TextInput
              label={C.xUserId}
              description={C.xUserIdHint}
              inputMode="numeric"
              autoComplete="off"
              value={d.userId}
              onChange={(e) => setD({ ...d, userId: e.currentTarget.value })}
              data-testid="channel-user-id"
            />
            {secretField('consumerKey', C.consumerKey, C.consumerKeyHint, d.hasToken)}
            {secretField('consumerSecret', C.consumerSecret, C.consumerSecretHint, d.hasAppSecret)}
            {secretField('accessToken', C.xAccessToken, C.xAccessTokenHint, d.hasToken)}
            {secretField('accessTokenSecret', C.accessTokenSecret, C.accessTokenSecretHint, d.hasToken)}
          </SimpleGrid>
        )}
        <Switch
          label={C.active}
          description={C.activeHint}
          checked={d.active}
          onChange={(e) => setD({ ...d, active: e.currentTarget.checked })}
        />
        <FormActions
          error={error}
          testId="channel"
          cancelLabel={C.cancel}
          saveLabel={C.save}
          saving={busy}
          onCancel={onClose}
          onSave={() => void save()}
        />
      </Stack>
    </form>
  );
}
