import { Alert, Button, Group, Text } from '@mantine/core';
import type { Announcement } from '@parley/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { formatDateTime } from '../../lib/dates';
import { api, errorText } from '../../lib/http';
import { announcementKey } from '../../lib/queryKeys';
import { type DialogInput, InputDialog } from '../../ui/InputDialog';
import { SettingsCard } from '../../ui/SettingsCard';
import { a } from './strings';

/** When the announcement stops showing, for each "Show until" choice (null: until removed or replaced). */
export function expiryOf(choice: string | undefined, now = new Date()): number | null {
  const end = new Date(now);
  if (choice === a.untilHour) return now.getTime() + 3_600_000;
  if (choice === a.untilToday) return end.setHours(23, 59, 59, 999);
  if (choice === a.untilWeek) return now.getTime() + 7 * 86_400_000;
  return null;
}

const whenText = (ms: number) => formatDateTime(ms);

const inputs: DialogInput[] = [
  { kind: 'text', name: 'message', label: a.message, required: true },
  { kind: 'option', name: 'until', label: a.until, options: [...a.untilChoices], initial: a.untilRemoved },
  { kind: 'button', name: 'level', label: a.publishAs, options: [a.info, a.warning] },
];

/**
 * SHELL-37: an admin publishes the banner everyone in the account sees, or removes it. Publishing goes
 * through the generic input dialog (SHELL-42 .. SHELL-48): the announcement showing now as list rows, the
 * message, how long it shows (option kind), the level as the answer buttons (button kind), and Remove
 * current as the extra button.
 */
export function AnnouncementsCard() {
  const qc = useQueryClient();
  const current = useQuery({
    queryKey: announcementKey,
    queryFn: () =>
      api<{ announcement: Announcement | null }>('GET', '/api/announcement').then((r) => r.announcement ?? null),
  });
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const write = useMutation({
    mutationFn: (v: { call: () => Promise<unknown>; then?: () => void }) => v.call(),
    onMutate: () => setError(null),
    onSuccess: async (_r, v) => {
      await qc.invalidateQueries({ queryKey: announcementKey });
      v.then?.();
    },
    onError: (err) => setError(errorText(err)),
  });
  const busy = write.isPending;
  const run = (call: () => Promise<unknown>, then?: () => void) => write.mutate({ call, then });
  const remove = () =>
    run(
      () => api('DELETE', '/api/announcement'),
      () => setOpen(false),
    );
  const c = current.data;

  return (
    <>
      <SettingsCard
        title={a.title}
        hint={a.hint}
        aside={
          <Button
            onClick={() => {
              setError(null);
              setOpen(true);
            }}
          >
            {a.new}
          </Button>
        }
      >
        {c && (
          <Alert color={c.level === 'warning' ? 'orange' : 'blue'} data-testid="current-announcement">
            <Group justify="space-between">
              <div>
                <Text size="sm">{c.message}</Text>
                <Text size="xs" c="dimmed">
                  {c.created_by} · {whenText(c.created_at)}
                  {c.expires_at !== null && ` · ${a.untilAt(whenText(c.expires_at))}`}
                </Text>
              </div>
              <Button size="xs" variant="default" loading={busy} onClick={remove}>
                {a.remove}
              </Button>
            </Group>
          </Alert>
        )}
        {error && !open && (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
      </SettingsCard>
      <InputDialog
        opened={open}
        title={a.new}
        description={c ? a.replaces : a.hint}
        error={error}
        busy={busy}
        list={
          c
            ? [
                { label: a.showingNow, value: c.message },
                { label: a.until, value: c.expires_at === null ? a.untilRemoved : whenText(c.expires_at) },
              ]
            : undefined
        }
        inputs={inputs}
        extraButton={c ? { label: a.removeCurrent, onClick: remove } : undefined}
        onClose={() => setOpen(false)}
        onSubmit={(v) =>
          run(
            () =>
              api('POST', '/api/announcement', {
                message: (v.message ?? '').trim(),
                level: v.level === a.warning ? 'warning' : 'info',
                expires_at: expiryOf(v.until),
              }),
            () => setOpen(false),
          )
        }
      />
    </>
  );
}
