import { Button, Group, Modal, Radio, Select, Stack, Text } from '@mantine/core';
import type { Label, TicketBulkInput, TicketListItem } from '@parley/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { useDepartments } from '../../lib/api/departments';
import { statusApi } from '../../lib/api/status';
import { ticketsApi } from '../../lib/api/tickets';
import { errorText } from '../../lib/http';
import { statusKeys } from '../../lib/queryKeys';
import { toast } from '../../ui/toast';
import { T } from './strings';

type Action = Omit<TicketBulkInput, 'ids' | 'filter'>;

/**
 * The bulk actions of the selection bar: assign, add or remove a label, department and merge, each one call
 * to `POST /api/ticket/bulk` (one transaction for every ticket). `target` is the selected ids, or the
 * list's filter when every matching ticket is chosen. `slot` takes further menus (macros).
 */
export function BulkActions(o: {
  target: Pick<TicketBulkInput, 'ids' | 'filter'>;
  /** The selected tickets on screen (the merge picks its primary among them). */
  rows: TicketListItem[];
  labels: Label[];
  me: string;
  onDone(): void;
  onError(text: string): void;
  slot?: ReactNode;
}) {
  const team = useQuery({ queryKey: statusKeys.online, queryFn: statusApi.online, staleTime: 60_000 });
  const departments = useDepartments();
  const [merging, setMerging] = useState(false);
  const bulk = useMutation({
    mutationFn: (v: { action: Action; done: string }) =>
      ticketsApi.bulk({ ...o.target, ...v.action } as TicketBulkInput),
    onSuccess: (r, { done }) => {
      toast({ message: T.bulk.done(done, r.ids.length) });
      o.onDone();
    },
    onError: (err) => o.onError(errorText(err, T.bulk.failed)),
  });
  const busy = bulk.isPending;
  const run = (action: Action, done: string) => bulk.mutateAsync({ action, done }).catch(() => undefined);
  const live = o.labels.filter((l) => !l.removed).map((l) => ({ value: String(l.id), label: l.name }));
  const users = (team.data ?? []).map((u) => ({
    value: u.username,
    label: u.username === o.me ? T.bulk.me : u.name || u.username,
  }));
  return (
    <>
      <Select
        size="xs"
        w={150}
        placeholder={T.bulk.assign}
        aria-label={T.bulk.assignLabel}
        data={[{ value: '', label: T.bulk.nobody }, ...users]}
        value={null}
        disabled={busy}
        searchable
        onChange={(v) => v !== null && void run({ action: 'assign', value: v ? [v] : [] }, T.bulk.assigned)}
      />
      <Select
        size="xs"
        w={140}
        placeholder={T.bulk.addLabel}
        aria-label={T.bulk.addLabelLabel}
        data={live}
        value={null}
        disabled={busy}
        onChange={(v) => v && void run({ action: 'addLabels', value: [Number(v)] }, T.bulk.labelled)}
      />
      <Select
        size="xs"
        w={150}
        placeholder={T.bulk.removeLabel}
        aria-label={T.bulk.removeLabelLabel}
        data={o.labels.map((l) => ({ value: String(l.id), label: l.removed ? `${l.name} (Removed)` : l.name }))}
        value={null}
        disabled={busy}
        onChange={(v) => v && void run({ action: 'removeLabels', value: [Number(v)] }, T.bulk.unlabelled)}
      />
      <Select
        size="xs"
        w={150}
        placeholder={T.bulk.department}
        aria-label={T.bulk.departmentLabel}
        data={[
          { value: 'none', label: T.bulk.noDepartment },
          ...(departments.data ?? []).map((d) => ({ value: String(d.id), label: d.name })),
        ]}
        value={null}
        disabled={busy}
        onChange={(v) => v && void run({ action: 'department', value: v === 'none' ? null : Number(v) }, T.bulk.moved)}
      />
      <Button
        size="compact-xs"
        variant="default"
        disabled={busy || !o.target.ids || o.rows.length < 2}
        title={o.target.ids ? undefined : T.bulk.mergeNeedsIds}
        onClick={() => setMerging(true)}
        data-testid="bulk-merge"
      >
        {T.bulk.merge}
      </Button>
      {o.slot}
      <MergeModal
        opened={merging}
        rows={o.rows}
        onClose={() => setMerging(false)}
        onMerge={(primary) => {
          setMerging(false);
          void run({ action: 'merge', value: primary }, T.bulk.merged);
        }}
      />
    </>
  );
}

/** Picks the primary ticket: the others' messages move under it and they are closed. */
function MergeModal(o: { opened: boolean; rows: TicketListItem[]; onClose(): void; onMerge(primary: number): void }) {
  const [primary, setPrimary] = useState<string | null>(null);
  const chosen = primary && o.rows.some((r) => String(r.id) === primary) ? primary : null;
  return (
    <Modal opened={o.opened} onClose={o.onClose} title={T.bulk.mergeTitle} size="lg">
      <Stack>
        <Text size="sm">{T.bulk.mergeText}</Text>
        <Radio.Group value={chosen} onChange={setPrimary} label={T.bulk.primary}>
          <Stack gap="xs" mt="xs">
            {o.rows.map((r) => (
              <Radio key={r.id} value={String(r.id)} label={`#${r.ticket_number} ${r.title}`} />
            ))}
          </Stack>
        </Radio.Group>
        <Group justify="flex-end">
          <Button variant="default" onClick={o.onClose}>
            {T.bulk.cancel}
          </Button>
          <Button disabled={!chosen} onClick={() => chosen && o.onMerge(Number(chosen))} data-testid="merge-confirm">
            {T.bulk.mergeConfirm(o.rows.length)}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
