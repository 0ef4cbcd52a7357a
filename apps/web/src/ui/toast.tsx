import { Button, Group, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { TOAST_MS } from '@parley/contracts';
import { errorText } from '../lib/http';

/**
 * SHELL-58, SHELL-59: a toast at the bottom left (at most 3 show at once, set on the Notifications host)
 * for 3 s, with Close (the built-in button) and View when there is somewhere to go.
 */
export function toast(opts: { title?: string; message: string; color?: string; onView?: () => void }) {
  const id = notifications.show({
    title: opts.title,
    color: opts.color,
    autoClose: TOAST_MS,
    withCloseButton: true,
    closeButtonProps: { 'aria-label': 'Close' },
    message: opts.onView ? (
      <Group justify="space-between" wrap="nowrap" gap="xs">
        <Text size="sm">{opts.message}</Text>
        <Button
          size="compact-xs"
          variant="light"
          onClick={() => {
            notifications.hide(id);
            opts.onView?.();
          }}
        >
          View
        </Button>
      </Group>
    ) : (
      opts.message
    ),
  });
  return id;
}

/**
 * A write whose outcome is told in a toast (a delete from a list): `done` when it succeeds, the server's
 * description in red when it fails. Resolves whether it succeeded.
 */
export async function toastWrite(call: () => Promise<unknown>, done: string): Promise<boolean> {
  try {
    await call();
  } catch (err) {
    toast({ message: errorText(err), color: 'red' });
    return false;
  }
  toast({ message: done });
  return true;
}
