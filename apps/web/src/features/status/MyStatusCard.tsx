import { Alert, Button, Card, Group, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { AGENT_STATUSES, type AgentStatus } from '@parley/contracts';
import { useEffect, useState } from 'react';
import { HttpError } from '../../lib/http';
import { statusApi } from './api';
import { statusLabel, t } from './strings';

/** Choose a status with a reason; Update stays disabled until something changed (and AWAY/BUSY has a reason). */
export function MyStatusCard({ current, onChanged }: { current: AgentStatus; onChanged(s: AgentStatus): void }) {
  const [status, setStatus] = useState<AgentStatus>(current);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setStatus(current), [current]);
  const needsReason = (status === 'AWAY' || status === 'BUSY') && reason.trim() === '';
  const unchanged = status === current && reason.trim() === '';

  async function update() {
    setBusy(true);
    setError(null);
    try {
      await statusApi.update({ status: status as (typeof AGENT_STATUSES)[number], reason: reason.trim() });
      onChanged(status);
      setReason('');
    } catch (err) {
      setError(err instanceof HttpError ? err.description : 'Failed');
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card withBorder radius="md" padding="lg">
      <Stack>
        <Title order={3} size="h4">
          {t.myStatus}
        </Title>
        {error && (
          <Alert color="red" variant="light">
            {error}
          </Alert>
        )}
        <Select
          label={t.myStatus}
          data={AGENT_STATUSES.map((s) => ({ value: s, label: statusLabel[s] }))}
          value={status}
          onChange={(v) => v && setStatus(v as AgentStatus)}
          allowDeselect={false}
        />
        <TextInput
          label={t.reason}
          name="reason"
          value={reason}
          maxLength={200}
          onChange={(e) => setReason(e.currentTarget.value)}
        />
        <Group justify="space-between">
          <Text size="xs" c="dimmed">
            {t.reasonHint}
          </Text>
          <Button onClick={update} disabled={unchanged || needsReason} loading={busy}>
            {t.update}
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
