import { Alert, Button, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { AGENT_STATUSES, effectiveStatus, REASON_REQUIRED, STATUS_DURATION_NOTE, statusLabel } from '@parley/contracts';
import { useEffect, useState } from 'react';
import { statusApi } from '../../lib/api/status';
import { statusKeys } from '../../lib/queryKeys';
import { shell, useShell } from '../../lib/shellStore';
import { useWrite } from '../../lib/useWrite';
import { useCustomStatuses, useMyStatus } from './presence';
import { t } from './strings';

/**
 * STATUS-07 .. STATUS-09: choose a status and a reason. Update is disabled while nothing changed, and
 * while Away, Busy (or a custom status that needs one) has no reason.
 */
export function MyStatusModal() {
  const opened = useShell((s) => s.myStatusOpen);
  const me = useMyStatus();
  const custom = useCustomStatuses();
  const current = me.data ? effectiveStatus(me.data) : 'ONLINE';
  const currentChoice = current === 'OFFLINE' ? 'ONLINE' : current;
  const [status, setStatus] = useState(currentChoice);
  const [reason, setReason] = useState('');
  const { run, busy, error, setError } = useWrite({ invalidate: statusKeys.me });

  useEffect(() => {
    if (opened) {
      setStatus(currentChoice);
      setReason(me.data?.reason ?? '');
      setError(null);
    }
  }, [opened, currentChoice, me.data?.reason, setError]);

  const customItem = custom.data?.find((c) => c.name === status);
  const needsReason = (REASON_REQUIRED.includes(status) || Boolean(customItem?.needs_reason)) && reason.trim() === '';
  const unchanged = status === currentChoice && reason.trim() === (me.data?.reason ?? '');
  const close = () => shell.set({ myStatusOpen: false });

  async function update() {
    if (await run(() => statusApi.update({ status, reason: reason.trim() }))) close();
  }

  const choices = [
    ...AGENT_STATUSES.map((s) => ({ value: s, label: statusLabel(s) })),
    ...(custom.data ?? []).map((c) => ({ value: c.name, label: c.name })),
  ];
  return (
    <Modal opened={opened} onClose={close} title={t.myStatus} centered>
      <Stack>
        {error && (
          <Alert color="red" variant="light" role="alert">
            {error}
          </Alert>
        )}
        <Select
          label="Status"
          data={choices}
          value={status}
          onChange={(v) => v && setStatus(v)}
          allowDeselect={false}
          comboboxProps={{ withinPortal: true }}
          data-testid="status-select"
        />
        <TextInput
          label={t.reason}
          name="reason"
          value={reason}
          maxLength={200}
          onChange={(e) => setReason(e.currentTarget.value)}
        />
        <Text size="xs" c="dimmed">
          {STATUS_DURATION_NOTE}
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={close}>
            Cancel
          </Button>
          <Button onClick={update} loading={busy} disabled={unchanged || needsReason}>
            {t.update}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
