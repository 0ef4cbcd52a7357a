import { Badge, Button, Group, Modal, Paper, Stack, Text, Title } from '@mantine/core';
import {
  CHANNELS,
  RETENTION_STRINGS as R,
  RETENTION_ACTIONS,
  RETENTION_TARGETS,
  type RetentionRule,
} from '@parley/contracts';
import { IconPlayerPlay } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { formatDateTime } from '../../lib/dates';
import { retentionKeys } from '../../lib/queryKeys';
import { ConfirmDelete, EntryActions, ModalFormCard } from '../../ui/ModalFormCard';
import { toastWrite } from '../../ui/toast';
import { retentionApi } from './api';
import { PreviewLine } from './PreviewLine';
import { blankRule, type RuleDraft, RuleForm } from './RuleForm';

const channelLabel = (c: string) => (c === '' ? R.allChannels : (CHANNELS[c as keyof typeof CHANNELS] ?? c));
const ruleLabel = (r: Pick<RetentionRule, 'target' | 'action' | 'days' | 'channel'>) =>
  `${RETENTION_ACTIONS[r.action]} · ${RETENTION_TARGETS[r.target]} · ${r.days} d · ${channelLabel(r.channel)}`;

/** The last runs, newest first: when, scheduled or by hand, and how many items each rule removed. */
function LastRuns({ rules }: { rules: RetentionRule[] }) {
  const runs = useQuery({ queryKey: retentionKeys.runs, queryFn: retentionApi.runs });
  const target = (id: number, fallback: string) => {
    const r = rules.find((x) => x.id === id);
    return r ? RETENTION_TARGETS[r.target] : fallback;
  };
  return (
    <Stack gap={6} data-testid="retention-runs">
      <Title order={3} size="h5">
        {R.lastRuns}
      </Title>
      {runs.data?.length === 0 && (
        <Text size="sm" c="dimmed">
          {R.noRuns}
        </Text>
      )}
      {runs.data?.map((run) => (
        <Group key={run.id} gap="xs" wrap="wrap" data-testid="retention-run">
          <Text size="sm" fw={500}>
            {formatDateTime(run.finishedAt)}
          </Text>
          <Badge size="sm" variant="outline" color="gray">
            {run.trigger === 'manual' ? R.manual : R.scheduled}
          </Badge>
          <Text size="sm" c="dimmed">
            {run.counts.length === 0
              ? R.nothing
              : run.counts.map((c) => `${target(c.ruleId, RETENTION_TARGETS[c.target])}: ${c.count}`).join(' · ')}
          </Text>
        </Group>
      ))}
    </Stack>
  );
}

/**
 * Settings -> Data retention (admins): the rules with what each removes on the next run, Run now (after a
 * confirmation naming the preview), and the last runs.
 */
export function RetentionCard() {
  const qc = useQueryClient();
  const rules = useQuery({ queryKey: retentionKeys.rules, queryFn: retentionApi.rules });
  const preview = useQuery({ queryKey: retentionKeys.preview, queryFn: retentionApi.preview });
  const [removing, setRemoving] = useState<RetentionRule | null>(null);
  const [confirmRun, setConfirmRun] = useState(false);
  const [running, setRunning] = useState(false);
  const refresh = () => qc.invalidateQueries({ queryKey: retentionKeys.all });
  const remove = async (r: RetentionRule) => {
    setRemoving(null);
    if (await toastWrite(() => retentionApi.remove(r.id), R.removed)) await refresh();
  };
  const runNow = async () => {
    setConfirmRun(false);
    setRunning(true);
    if (await toastWrite(retentionApi.runNow, R.ran)) await refresh();
    setRunning(false);
  };
  const list = rules.data ?? [];
  const previewOf = (id: number) => preview.data?.find((p) => p.ruleId === id);
  return (
    <ModalFormCard<RuleDraft>
      title={R.title}
      hint={R.hint}
      testId="retention-card"
      addLabel={R.addRule}
      addTestId="retention-new"
      editTitle={R.editRule}
      blank={blankRule}
      form={(draft, done) => <RuleForm draft={draft} {...done} />}
      onSaved={() => void refresh()}
    >
      {(edit) => (
        <Stack gap="sm">
          {list.length === 0 && (
            <Text size="sm" c="dimmed">
              {R.noRules}
            </Text>
          )}
          {list.map((r) => {
            const p = previewOf(r.id);
            return (
              <Paper key={r.id} withBorder p="sm" radius="sm" data-testid="retention-rule">
                <Group justify="space-between" wrap="nowrap" align="flex-start">
                  <Stack gap={4} style={{ minWidth: 0 }}>
                    <Text fw={600} size="sm">
                      {RETENTION_TARGETS[r.target]}
                    </Text>
                    <Group gap={4}>
                      <Badge size="sm" color={r.action === 'delete' ? 'red' : 'blue'} variant="light">
                        {RETENTION_ACTIONS[r.action]}
                      </Badge>
                      <Badge size="sm" variant="outline" color="gray">
                        {r.days} {R.daysUnit}
                      </Badge>
                      <Badge size="sm" variant="outline" color="gray">
                        {channelLabel(r.channel)}
                      </Badge>
                    </Group>
                    {p && (
                      <Group gap={6} wrap="nowrap">
                        <Text size="sm" c="dimmed" style={{ flexShrink: 0 }}>
                          {R.preview}:
                        </Text>
                        <PreviewLine item={p} />
                      </Group>
                    )}
                  </Stack>
                  <EntryActions
                    name={ruleLabel(r)}
                    editLabel={R.edit}
                    deleteLabel={R.remove}
                    onEdit={() =>
                      edit({ id: r.id, target: r.target, action: r.action, days: r.days, channel: r.channel })
                    }
                    onDelete={() => setRemoving(r)}
                  />
                </Group>
              </Paper>
            );
          })}
          {list.length > 0 && (
            <Group>
              <Button
                variant="light"
                color="red"
                leftSection={<IconPlayerPlay size={16} />}
                loading={running}
                onClick={() => setConfirmRun(true)}
                data-testid="retention-run-now"
              >
                {R.runNow}
              </Button>
            </Group>
          )}
          <LastRuns rules={list} />
          <Modal opened={confirmRun} onClose={() => setConfirmRun(false)} title={R.runNow}>
            <Stack>
              <Text size="sm">{R.runConfirm}</Text>
              {preview.data?.map((p) => (
                <Group key={p.ruleId} gap={6} wrap="nowrap" align="flex-start">
                  <Text size="sm" fw={500}>
                    {RETENTION_TARGETS[p.target]}:
                  </Text>
                  <PreviewLine item={p} />
                </Group>
              ))}
              <Group justify="flex-end">
                <Button variant="default" onClick={() => setConfirmRun(false)}>
                  {R.cancel}
                </Button>
                <Button color="red.8" onClick={() => void runNow()} data-testid="retention-run-confirm">
                  {R.runNow}
                </Button>
              </Group>
            </Stack>
          </Modal>
          <ConfirmDelete
            item={removing}
            title={R.remove}
            message={(r) => (
              <>
                <Text size="sm">{R.removeConfirm}</Text>
                <Text size="sm" fw={600}>
                  {ruleLabel(r)}
                </Text>
              </>
            )}
            cancelLabel={R.cancel}
            confirmLabel={R.remove}
            testId="retention-remove-confirm"
            onClose={() => setRemoving(null)}
            onConfirm={(r) => void remove(r)}
          />
        </Stack>
      )}
    </ModalFormCard>
  );
}
