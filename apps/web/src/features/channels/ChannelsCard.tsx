import { Alert, Stack, Text } from '@mantine/core';
import type { ChannelView } from '@parley/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useDepartments } from '../../lib/api/departments';
import { errorText } from '../../lib/http';
import { channelKeys } from '../../lib/queryKeys';
import { ConfirmDelete, ModalFormCard } from '../../ui/ModalFormCard';
import { toastWrite } from '../../ui/toast';
import { channelsApi } from './api';
import { ChannelForm } from './ChannelForm';
import { ChannelRow } from './ChannelRow';
import { blankChannel, type ChannelDraft, draftOf } from './channelDraft';
import { NotOnPlan } from './NotOnPlan';
import { C } from './strings';

/** The last event and last error move while the screen is open: the list is read again this often. */
const REFRESH_MS = 30_000;

/**
 * Settings -> Channels (admins): the account's messaging channels. Add offers only the providers the plan
 * allows (none: said once); those it leaves out are listed with the plan that has them and the way to the
 * Plans page. A channel kept from a plan that had it says so and offers only Remove. Without SECRETS_KEY on the server the card says so once, in
 * the server's words, and offers no form. Without PUBLIC_URL the webhook addresses cannot be given: said once.
 */
export function ChannelsCard() {
  const qc = useQueryClient();
  const list = useQuery({ queryKey: channelKeys.list, queryFn: channelsApi.list, refetchInterval: REFRESH_MS });
  const departments = useDepartments();
  const [deleting, setDeleting] = useState<ChannelView | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: channelKeys.list });
  const data = list.data;
  const allowed = data?.allowed ?? [];
  const notOnPlan = data?.notOnPlan ?? [];
  const configured = data?.configured ?? false;
  const departmentName = (id: number | null) => departments.data?.find((d) => d.id === id)?.name;
  const remove = async (c: ChannelView) => {
    setDeleting(null);
    if (await toastWrite(() => channelsApi.remove(c.id), C.deleted)) await refresh();
  };
  const noUrl = configured && (data?.data.some((c) => c.webhookUrl === null) ?? false);
  return (
    <ModalFormCard<ChannelDraft>
      title={C.title}
      hint={C.intro}
      testId="channels-card"
      addLabel={C.add}
      addTestId="channel-new"
      editTitle={C.editTitle}
      add={!configured || allowed.length === 0 ? 'hidden' : 'enabled'}
      blank={() => blankChannel(allowed[0] ?? 'whatsapp')}
      form={(draft, done) => (
        <ChannelForm draft={draft} allowed={allowed} departments={departments.data ?? []} {...done} />
      )}
      onSaved={() => void refresh()}
    >
      {(edit) => (
        <Stack gap="sm">
          {data && !data.configured && (
            <Alert color="yellow" data-testid="channels-not-configured">
              {data.description}
            </Alert>
          )}
          {data?.configured && allowed.length === 0 && (
            <Alert color="yellow" data-testid="channels-none-on-plan">
              {C.noneOnPlan}
            </Alert>
          )}
          {noUrl && (
            <Alert color="yellow" data-testid="channels-no-public-url">
              {C.noPublicUrl}
            </Alert>
          )}
          {list.error && (
            <Alert color="red" role="alert">
              {errorText(list.error)}
            </Alert>
          )}
          {data?.configured && allowed.length > 0 && data.data.length === 0 && (
            <Text c="dimmed" size="sm" data-testid="channels-empty">
              {C.empty}
            </Text>
          )}
          {list.isPending && (
            <Text c="dimmed" size="sm">
              …
            </Text>
          )}
          {data?.data.map((c) => (
            <ChannelRow
              key={c.id}
              channel={c}
              department={departmentName(c.departmentId)}
              configured={data.configured}
              offPlan={notOnPlan.find((n) => n.kind === c.kind)?.description}
              onEdit={() => edit(draftOf(c))}
              onDelete={() => setDeleting(c)}
            />
          ))}
          {data?.configured && <NotOnPlan items={notOnPlan} />}
          <ConfirmDelete
            item={deleting}
            title={C.deleteTitle}
            message={(c) => <Text>{C.deleteConfirm(c.name)}</Text>}
            cancelLabel={C.cancel}
            confirmLabel={C.delete}
            testId="channel-delete-confirm"
            onClose={() => setDeleting(null)}
            onConfirm={(c) => void remove(c)}
          />
        </Stack>
      )}
    </ModalFormCard>
  );
}
