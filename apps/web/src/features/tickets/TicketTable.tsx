import { Badge, Checkbox, Group, Select, Stack, Table, Text } from '@mantine/core';
import {
  appointmentDays,
  assigneeList,
  assigneeText,
  channelName,
  type Label,
  type TicketCustomStatus,
  type TicketListItem,
  ticketDate,
} from '@parley/contracts';
import { IconLock } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { statusOptions } from '../../lib/api/ticketStatuses';
import { useDisplayName } from '../../lib/people';
import { highlightLeft } from './highlight';
import { T } from './strings';
import classes from './TicketsScreen.module.css';

export interface RowActions {
  labels: Map<number, Label>;
  custom: TicketCustomStatus[];
  selectMode: boolean;
  selected: Set<number>;
  activeId: number | null;
  /** The item was clicked (open it, toggle it or pop it up: the screen decides). */
  onClick(t: TicketListItem): void;
  /** Its checkbox was ticked or unticked (in any mode: the bulk actions act on the ticked rows). */
  onToggle?(t: TicketListItem): void;
  /** The header's checkbox: tick or untick every row on screen. */
  onTogglePage?(rows: TicketListItem[], on: boolean): void;
  /** Two-line rows without the Received column, for a narrow list (beside an open ticket). */
  compact?: boolean;
  onStatus(t: TicketListItem, status: number): void;
}

function LabelBadges({ ids, labels }: { ids: number[]; labels: Map<number, Label> }) {
  return (
    <>
      {ids.map((id) => {
        const l = labels.get(id);
        if (!l) return null;
        return (
          <Badge key={id} size="xs" variant="dot" color={l.color} tt="none">
            {l.removed ? 'Removed' : l.name}
          </Badge>
        );
      })}
    </>
  );
}

/** TICKET-62: days to the customer's preferred appointment, red under 2. */
function Appointment({ other }: { other: Record<string, unknown> }) {
  const a = appointmentDays(other);
  if (!a) return null;
  return (
    <Badge size="xs" variant="light" color={a.urgent ? 'red' : 'gray'} tt="none" data-testid="appointment-days">
      {T.appointmentDays(a.days)}
    </Badge>
  );
}

/** The status of one ticket, changeable in place (TICKET-22, TICKET-27; custom statuses, "?" for unknown). */
function StatusControl({ t, a }: { t: TicketListItem; a: RowActions }) {
  const options = statusOptions(a.custom);
  const known = options.some((o) => o.value === String(t.closed));
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: only stops the row's click; the Select is the control.
    <div onClick={(e) => e.stopPropagation()} onKeyDown={(e) => e.stopPropagation()}>
      <Select
        size="xs"
        w={a.compact ? 112 : 130}
        aria-label={`${T.status} of #${t.ticket_number}`}
        data={known ? options : [...options, { value: String(t.closed), label: '?', disabled: true }]}
        value={String(t.closed)}
        allowDeselect={false}
        onChange={(v) => v !== null && v !== String(t.closed) && a.onStatus(t, Number(v))}
        data-testid="ticket-status"
      />
    </div>
  );
}

/** One row: TICKET-02 columns; the new-message highlight (TICKET-57), labels, assignees (TICKET-61). */
function TicketRow({ t, a }: { t: TicketListItem; a: RowActions }) {
  const displayName = useDisplayName();
  const selected = a.selected.has(t.id);
  // TICKET-57: a clicked item keeps its highlight 5 s; re-render when the hold ends.
  const [, expire] = useState(0);
  const left = t.newMessage ? 0 : highlightLeft(t.id);
  useEffect(() => {
    if (left <= 0) return;
    const timer = setTimeout(() => expire((n) => n + 1), left);
    return () => clearTimeout(timer);
  }, [left]);
  const isNew = t.newMessage || left > 0;
  return (
    <Table.Tr
      data-testid="ticket-row"
      data-ticket={t.id}
      data-new={isNew || undefined}
      data-active={a.activeId === t.id || undefined}
      className={classes.row}
      onClick={() => a.onClick(t)}
      style={{ cursor: 'pointer' }}
      aria-selected={a.selectMode ? selected : undefined}
    >
      {a.onToggle && (
        <Table.Td w={28} pr={0}>
          <Checkbox
            size="xs"
            checked={selected}
            onChange={() => a.onToggle?.(t)}
            onClick={(e) => e.stopPropagation()}
            aria-label={T.bulk.selectRow(t.ticket_number)}
          />
        </Table.Td>
      )}
      {!a.compact && (
        <Table.Td className={classes.num}>
          <Group gap={6} wrap="nowrap">
            {a.selectMode && !a.onToggle && (
              <Checkbox
                size="xs"
                checked={selected}
                onChange={() => a.onClick(t)}
                onClick={(e) => e.stopPropagation()}
                aria-label={`Select #${t.ticket_number}`}
              />
            )}
            {t.ticket_number}
          </Group>
        </Table.Td>
      )}
      <Table.Td>
        <Stack gap={2}>
          <Group gap={6} wrap="nowrap">
            {t.severity && (
              <Badge size="xs" color={t.severity === 'H' ? 'red' : t.severity === 'M' ? 'orange' : 'gray'}>
                {t.severity}
              </Badge>
            )}
            {t.encryption && <IconLock size={14} aria-label="Encrypted" />}
            <Text size="sm" fw={isNew ? 700 : 500} lineClamp={a.compact ? 2 : 1} className={classes.title}>
              {t.title}
            </Text>
            {isNew && (
              <Badge size="xs" color="indigo" variant="filled" tt="none" className={classes.keep}>
                {t.hasResponded ? 'Replied' : 'New message'}
              </Badge>
            )}
          </Group>
          <Group gap={6}>
            <Text size="xs" c="dimmed">
              {a.compact && `#${t.ticket_number} · `}
              {channelName(t.channel)} · {t.name || t.email || t.phone}
            </Text>
            <Appointment other={t.other} />
            <LabelBadges ids={t.label} labels={a.labels} />
            {t.assignee && (
              <Text size="xs" c="dimmed">
                → {assigneeText(assigneeList(t.assignee).map(displayName))}
              </Text>
            )}
          </Group>
        </Stack>
      </Table.Td>
      {a.compact ? (
        <Table.Td w={120}>
          <Stack gap={4} align="flex-end">
            <Text className={classes.date} title={`Received ${ticketDate(t.created_at)}`}>
              {ticketDate(t.updated_at)}
            </Text>
            <StatusControl t={t} a={a} />
          </Stack>
        </Table.Td>
      ) : (
        <>
          <Table.Td>
            <StatusControl t={t} a={a} />
          </Table.Td>
          <Table.Td className={classes.date}>{ticketDate(t.created_at)}</Table.Td>
          <Table.Td className={classes.date}>{ticketDate(t.updated_at)}</Table.Td>
        </>
      )}
    </Table.Tr>
  );
}

export function TicketTable({ rows, a }: { rows: TicketListItem[]; a: RowActions }) {
  const ticked = rows.filter((t) => a.selected.has(t.id)).length;
  const head = a.onTogglePage && (
    <Table.Th w={28} pr={0}>
      <Checkbox
        size="xs"
        checked={rows.length > 0 && ticked === rows.length}
        indeterminate={ticked > 0 && ticked < rows.length}
        onChange={(e) => a.onTogglePage?.(rows, e.currentTarget.checked)}
        aria-label={T.bulk.selectPage}
      />
    </Table.Th>
  );
  return (
    <Table.ScrollContainer minWidth={a.compact ? 0 : 640}>
      <Table highlightOnHover verticalSpacing={6} layout={a.compact ? 'fixed' : undefined}>
        <Table.Thead>
          {a.compact ? (
            <Table.Tr>
              {head}
              <Table.Th>Title</Table.Th>
              <Table.Th w={120} ta="right">
                Updated
              </Table.Th>
            </Table.Tr>
          ) : (
            <Table.Tr>
              {head}
              <Table.Th w={80}>#</Table.Th>
              <Table.Th>Title</Table.Th>
              <Table.Th w={140} aria-label={T.status} />
              <Table.Th w={110}>Received</Table.Th>
              <Table.Th w={110}>Updated</Table.Th>
            </Table.Tr>
          )}
        </Table.Thead>
        <Table.Tbody>
          {rows.map((t) => (
            <TicketRow key={t.id} t={t} a={a} />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
