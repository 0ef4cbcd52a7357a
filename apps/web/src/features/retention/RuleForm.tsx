import { Alert, NumberInput, Select, SimpleGrid, Stack, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import {
  CHANNELS,
  RETENTION_STRINGS as R,
  RETENTION_ACTION_NAMES,
  RETENTION_ACTIONS,
  RETENTION_CHANNELS,
  RETENTION_TARGET_NAMES,
  RETENTION_TARGETS,
  type RetentionAction,
  type RetentionTarget,
} from '@parley/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { errorText } from '../../lib/http';
import { retentionKeys } from '../../lib/queryKeys';
import { useWrite } from '../../lib/useWrite';
import { FormActions } from '../../ui/ModalFormCard';
import { retentionApi } from './api';
import { PreviewLine } from './PreviewLine';

export interface RuleDraft {
  id?: number;
  target: RetentionTarget;
  action: RetentionAction;
  days: number | string;
  channel: string;
}

export const blankRule = (): RuleDraft => ({ target: 'closed_tickets', action: 'anonymise', days: 365, channel: '' });

/** The channels a target may be limited to: none for the audit log, Live Chat alone for visitor data. */
const channelsFor = (target: RetentionTarget) =>
  target === 'audit_log' ? [] : target === 'visitor_data' ? ['LIVECHAT'] : RETENTION_CHANNELS;

/**
 * Add or change a retention rule: what, how, after how many days and on which channel. What the rule would
 * remove now is shown under the form before it is saved (the server's preview of the draft); the server
 * refuses a bad rule with its reason, shown under the form, and nothing is saved.
 */
export function RuleForm({ draft, onClose, onSaved }: { draft: RuleDraft; onClose(): void; onSaved(): void }) {
  const [d, setD] = useState(draft);
  const { run, busy, error } = useWrite({ invalidate: retentionKeys.all });
  const body = { target: d.target, action: d.action, days: Number(d.days), channel: d.channel };
  const [debounced] = useDebouncedValue(body, 300);
  const preview = useQuery({
    queryKey: [...retentionKeys.preview, 'draft', debounced],
    queryFn: () => retentionApi.previewDraft(debounced),
    retry: false,
  });
  const save = async () => {
    const ok = await run(() => (d.id ? retentionApi.update(d.id, body) : retentionApi.create(body)));
    if (ok) onSaved();
  };
  const channels = channelsFor(d.target);
  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
      data-testid="retention-form"
    >
      <Stack>
        <Select
          label={R.target}
          data={RETENTION_TARGET_NAMES.map((t) => ({ value: t, label: RETENTION_TARGETS[t] }))}
          value={d.target}
          allowDeselect={false}
          onChange={(v) => {
            const target = (v ?? 'closed_tickets') as RetentionTarget;
            setD({
              ...d,
              target,
              action: target === 'audit_log' ? 'delete' : d.action,
              channel: channelsFor(target).includes(d.channel) ? d.channel : '',
            });
          }}
          data-testid="retention-target"
        />
        <SimpleGrid cols={{ base: 1, xs: 3 }}>
          <Select
            label={R.action}
            data={RETENTION_ACTION_NAMES.filter((a) => d.target !== 'audit_log' || a === 'delete').map((a) => ({
              value: a,
              label: RETENTION_ACTIONS[a],
            }))}
            value={d.action}
            allowDeselect={false}
            onChange={(v) => setD({ ...d, action: (v ?? 'delete') as RetentionAction })}
            data-testid="retention-action"
          />
          <NumberInput
            label={R.days}
            value={d.days}
            onChange={(v) => setD({ ...d, days: v })}
            allowDecimal={false}
            data-testid="retention-days"
          />
          <Select
            label={R.channel}
            data={[
              { value: '', label: R.allChannels },
              ...channels.map((c) => ({ value: c, label: CHANNELS[c as keyof typeof CHANNELS] ?? c })),
            ]}
            value={d.channel}
            allowDeselect={false}
            disabled={channels.length === 0}
            onChange={(v) => setD({ ...d, channel: v ?? '' })}
            data-testid="retention-channel"
          />
        </SimpleGrid>
        <Alert variant="light" color="gray" title={R.previewOfRule} data-testid="retention-draft-preview">
          {preview.isError ? (
            <Text size="sm">{errorText(preview.error)}</Text>
          ) : preview.data ? (
            <PreviewLine item={preview.data} />
          ) : (
            <Text size="sm">…</Text>
          )}
        </Alert>
        <FormActions
          error={error}
          testId="retention"
          cancelLabel={R.cancel}
          saveLabel={R.save}
          saving={busy}
          onCancel={onClose}
          onSave={() => void save()}
        />
      </Stack>
    </form>
  );
}
