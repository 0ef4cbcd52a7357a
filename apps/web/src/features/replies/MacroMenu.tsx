import { Button, Group, Menu, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconBolt, IconChevronDown } from '@tabler/icons-react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { HttpError } from '../../lib/http';
import { replyKeys } from '../../lib/queryKeys';
import { repliesApi } from './api';
import { R } from './strings';

/** How long the toast with Undo stays (a toast's usual 3 s is too short to decide to undo). */
const UNDO_TOAST_MS = 10_000;

/** A refused run or undo: red, titled, and up long enough to read why (the server's words name the ticket). */
const failed = (e: unknown, title: string) =>
  notifications.show({
    color: 'red',
    title,
    autoClose: UNDO_TOAST_MS,
    withCloseButton: true,
    closeButtonProps: { 'aria-label': 'Close' },
    message: <span data-testid="macro-error">{e instanceof HttpError ? e.description : (e as Error).message}</span>,
  });

/**
 * "Run macro": the account's macros in a menu; choosing one runs it on `ticketIds` (the open ticket, or the
 * tickets selected in a list) and shows a toast with Undo, which undoes that run. The tickets change on
 * screen through the ordinary `updateTicket` events.
 */
export function MacroMenu({ ticketIds, compact = false }: { ticketIds: number[]; compact?: boolean }) {
  const macros = useQuery({ queryKey: replyKeys.macros, queryFn: repliesApi.macros, staleTime: 30_000 });
  const undo = async (runId: number, toastId: string) => {
    notifications.hide(toastId);
    try {
      const r = await repliesApi.undoRun(runId);
      notifications.show({ message: r.description, color: 'gray' });
    } catch (e) {
      failed(e, R.undoFailed);
    }
  };

  const running = useMutation({
    mutationFn: (id: number) => repliesApi.runMacro(id, ticketIds),
    onSuccess: (r) => {
      const toastId = `macro-run-${r.data.run_id}`;
      notifications.show({
        id: toastId,
        autoClose: UNDO_TOAST_MS,
        withCloseButton: true,
        closeButtonProps: { 'aria-label': 'Close' },
        message: (
          <Group justify="space-between" wrap="nowrap" gap="xs" data-testid="macro-toast">
            <Text size="sm">{r.description}</Text>
            <Button
              size="compact-xs"
              variant="light"
              data-testid="macro-undo"
              onClick={() => void undo(r.data.run_id, toastId)}
            >
              {R.undo}
            </Button>
          </Group>
        ),
      });
    },
    onError: (e) => failed(e, R.runFailed),
  });
  const run = (id: number) => running.mutate(id);
  const busy = running.isPending;

  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button
          variant="default"
          size={compact ? 'compact-sm' : 'sm'}
          leftSection={<IconBolt size={16} />}
          rightSection={<IconChevronDown size={14} />}
          loading={busy}
          disabled={ticketIds.length === 0}
          data-testid="macro-menu"
        >
          {R.runMacro}
        </Button>
      </Menu.Target>
      <Menu.Dropdown maw={320}>
        {(macros.data ?? []).length === 0 ? (
          <Text size="sm" c="dimmed" p="xs">
            {macros.isPending ? '…' : R.noMacros}
          </Text>
        ) : (
          macros.data!.map((m) => (
            <Menu.Item key={m.id} onClick={() => run(m.id)} data-testid="macro-item">
              {m.name}
            </Menu.Item>
          ))
        )}
      </Menu.Dropdown>
    </Menu>
  );
}
