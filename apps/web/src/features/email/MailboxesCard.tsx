import { Alert, Stack, Text } from '@mantine/core';
import type { Mailbox } from '@parley/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useDepartments } from '../../lib/api/departments';
import { errorText } from '../../lib/http';
import { mailboxKeys } from '../../lib/queryKeys';
import { useSession } from '../../lib/session';
import { ConfirmDelete, ModalFormCard } from '../../ui/ModalFormCard';
import { toastWrite } from '../../ui/toast';
import { mailboxesApi } from './api';
import { MailboxForm } from './MailboxForm';
import { MailboxRow } from './MailboxRow';
import { blankMailbox, draftOf, type MailboxDraft } from './mailboxDraft';
import { M } from './strings';

/** The fetch time and last error move while the screen is open: the list is read again this often. */
const REFRESH_MS = 30_000;

/**
 * Settings -> Mailboxes (admins): the account's support addresses and how many the plan allows. Without
 * SECRETS_KEY on the server the card says so once, in the server's words, and offers no Add.
 */
export function MailboxesCard() {
  const { state } = useSession();
  const plan = state.phase === 'signedIn' ? (state.session.plan ?? 0) : 0;
  const qc = useQueryClient();
  const list = useQuery({ queryKey: mailboxKeys.list, queryFn: mailboxesApi.list, refetchInterval: REFRESH_MS });
  const departments = useDepartments();
  const [deleting, setDeleting] = useState<Mailbox | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: mailboxKeys.list });
  const data = list.data;
  const count = data?.data.length ?? 0;
  const full = data?.limit != null && count >= data.limit;
  const departmentName = (id: number | null) => departments.data?.find((d) => d.id === id)?.name;
  const remove = async (m: Mailbox) => {
    setDeleting(null);
    if (await toastWrite(() => mailboxesApi.remove(m.id), M.deleted)) await refresh();
  };
  return (
    <ModalFormCard<MailboxDraft>
      title={M.title}
      hint={M.intro}
      testId="mailboxes-card"
      addLabel={M.add}
      addTestId="mailbox-new"
      editTitle={M.editTitle}
      add={!data?.configured ? 'hidden' : full ? 'disabled' : 'enabled'}
      blank={blankMailbox}
      form={(draft, done) => (
        <MailboxForm
          draft={draft}
          departments={departments.data ?? []}
          forwarding={data?.forwarding ?? false}
          {...done}
        />
      )}
      onSaved={() => void refresh()}
    >
      {(edit) => (
        <Stack gap="sm">
          {data && !data.configured && (
            <Alert color="yellow" data-testid="mailboxes-not-configured">
              {data.description}
            </Alert>
          )}
          {list.error && (
            <Alert color="red" role="alert">
              {errorText(list.error)}
            </Alert>
          )}
          {data && (
            <Text size="sm" data-testid="mailbox-limit">
              {M.limit(count, data.limit)}
              {full && data.limit !== null && data.configured && (
                <Text span c="dimmed" size="sm">
                  {' '}
                  {M.planLimit(data.limit, plan)}
                </Text>
              )}
            </Text>
          )}
          {data?.configured && count === 0 && (
            <Text c="dimmed" size="sm">
              {M.empty}
            </Text>
          )}
          {list.isPending && (
            <Text c="dimmed" size="sm">
              …
            </Text>
          )}
          {data?.data.map((m) => (
            <MailboxRow
              key={m.id}
              mailbox={m}
              department={departmentName(m.departmentId)}
              configured={data.configured}
              onEdit={() => edit(draftOf(m))}
              onDelete={() => setDeleting(m)}
            />
          ))}
          <ConfirmDelete
            item={deleting}
            title={M.deleteTitle}
            message={(m) => <Text>{M.deleteConfirm(m.address)}</Text>}
            cancelLabel={M.cancel}
            confirmLabel={M.delete}
            testId="mailbox-delete-confirm"
            onClose={() => setDeleting(null)}
            onConfirm={(m) => void remove(m)}
          />
        </Stack>
      )}
    </ModalFormCard>
  );
}
