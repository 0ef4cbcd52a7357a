import {
  ActionIcon,
  Anchor,
  Badge,
  Button,
  CloseButton,
  CopyButton,
  Group,
  Loader,
  MultiSelect,
  Paper,
  Select,
  Stack,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import {
  APPOINTMENT_KEY,
  appointmentDays,
  assigneeList,
  channelName,
  parseAppointment,
  planEntitlements,
  SURVEY_STRINGS,
  TICKET_IDENTITY_KEYS,
  type TicketInfo,
  type TicketListItem,
  ticketDate,
} from '@parley/contracts';
import { IconCopy, IconLayoutSidebarRight } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ComponentType, type ReactNode, useMemo, useState } from 'react';
import { Link } from 'react-router';
import { useDepartments } from '../../lib/api/departments';
import { statusApi } from '../../lib/api/status';
import { useTicketInfo } from '../../lib/api/ticketInfo';
import { statusOptions, useTicketStatuses } from '../../lib/api/ticketStatuses';
import { applyTicketUpdate, ticketsApi } from '../../lib/api/tickets';
import { formatDay } from '../../lib/dates';
import { errorText } from '../../lib/http';
import { useDisplayName } from '../../lib/people';
import { labelKeys, statusKeys, ticketKeys } from '../../lib/queryKeys';
import { useSession } from '../../lib/session';
import { toast } from '../../ui/toast';
import { CampaignPicker } from './FilterPanel';
import { T } from './strings';
import { TicketNotes } from './TicketNotes';

const I = T.info;

/** Applies a change's answer to the panel and to every list that holds the ticket; a refusal is a toast. */
function useChange(id: number) {
  const qc = useQueryClient();
  const change = useMutation({
    mutationFn: (v: { what: string; call: () => Promise<{ data: TicketListItem }> }) => v.call(),
    onSuccess: ({ data }, { what }) => {
      applyTicketUpdate(qc, data);
      const before = qc.getQueryData<TicketInfo>(ticketKeys.info(id));
      if (before) qc.setQueryData<TicketInfo>(ticketKeys.info(id), { ...before, ...data });
      if (what === 'campaign') void qc.invalidateQueries({ queryKey: ticketKeys.info(id) });
    },
    onError: (err) => toast({ message: errorText(err, I.failed), color: 'red' }),
  });
  const busy = change.isPending ? change.variables.what : null;
  const run = (what: string, call: () => Promise<{ data: TicketListItem }>) =>
    change.mutateAsync({ what, call }).catch(() => undefined);
  return { busy, run };
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed" fw={600}>
        {label}
      </Text>
      {children}
    </Stack>
  );
}

/**
 * SHELL-31 (design): the info panel beside a ticket's conversation. The customer, and every property an
 * agent changes while working the ticket: status, priority, assignees, labels, department, campaign and
 * products (each through its call, which posts the system message and tells the other screens), then the dates, the
 * appointment and who has read it.
 */
export function TicketInfoPanel({
  ticketId,
  onClose,
  heading = true,
  SlaStatus,
  Products,
  TimeTracking,
}: {
  ticketId: number;
  onClose?: () => void;
  /** False inside a drawer, whose own title names it. */
  heading?: boolean;
  /** The ticket's SLA timers (the SLA feature's), shown under the dates; the screen that composes the panel gives it. */
  SlaStatus: ComponentType<{ ticketId: number; version: number }>;
  /** The products the ticket is about, linked in place (the products feature's picker), under the campaign. */
  Products: ComponentType<{ ticketId: number }>;
  /** The ticket's tracked time (the timer feature's), under the SLA timers; given the same way. */
  TimeTracking: ComponentType<{ ticketId: number }>;
}) {
  const info = useTicketInfo(ticketId);
  const { state } = useSession();
  const me = state.phase === 'signedIn' ? state.session : null;
  // Contacts hidden from this user (hide_contacts) are not offered.
  const contactsShown = me?.type === 'admin' || !me?.permission?.includes('hide_contacts');
  const surveys = planEntitlements(me?.plan ?? 0).surveys;
  const custom = useTicketStatuses();
  const departments = useDepartments();
  const labels = useQuery({ queryKey: labelKeys.list, queryFn: ticketsApi.labels, staleTime: 60_000 });
  const team = useQuery({ queryKey: statusKeys.online, queryFn: statusApi.online, staleTime: 60_000 });
  const { busy, run } = useChange(ticketId);
  const t = info.data;

  const labelData = useMemo(() => {
    const all = labels.data ?? [];
    const mine = new Set(t?.label ?? []);
    // A removed label stays listed (read-only) while the ticket still carries it.
    return all
      .filter((l) => !l.removed || mine.has(l.id))
      .map((l) => ({ value: String(l.id), label: l.removed ? `${l.name} (Removed)` : l.name, disabled: l.removed }));
  }, [labels.data, t?.label]);
  const displayName = useDisplayName();
  const teamData = useMemo(() => {
    const users = team.data ?? [];
    const known = new Set(users.map((u) => u.username));
    return [
      ...users.map((u) => ({ value: u.username, label: u.name ? `${u.name} (${u.username})` : u.username })),
      // Someone assigned who is no longer on the team list still shows.
      ...assigneeList(t?.assignee ?? '')
        .filter((a) => !known.has(a))
        .map((a) => ({ value: a, label: a })),
    ];
  }, [team.data, t?.assignee]);

  if (!t)
    return (
      <Paper withBorder radius="md" p="md" data-testid="ticket-info">
        {info.isError ? <Text c="dimmed">{I.failed}</Text> : <Loader size="sm" aria-label="Loading" />}
      </Paper>
    );

  const options = statusOptions(custom);
  const knownStatus = options.some((o) => o.value === String(t.closed));
  const appointment = parseAppointment(t.other[APPOINTMENT_KEY]);
  const days = appointmentDays(t.other);
  const idType = t.other[TICKET_IDENTITY_KEYS.type];
  const idNumber = t.other[TICKET_IDENTITY_KEYS.number];
  const contact = [t.email, t.phone].filter(Boolean);

  return (
    <Paper
      withBorder={heading}
      radius="md"
      p={heading ? 'md' : 0}
      data-testid="ticket-info"
      aria-label={I.title}
      component="aside"
    >
      <Stack gap="md">
        {heading && (
          <Group justify="space-between" wrap="nowrap">
            <Title order={2} size="h4">
              {I.title}
            </Title>
            {onClose && <CloseButton aria-label={I.close} onClick={onClose} />}
          </Group>
        )}
        <Field label={I.customer}>
          <Text fw={600} data-testid="ticket-info-customer">
            {t.name || (contact.length ? '' : I.noCustomer)}
          </Text>
          {contact.map((c) => (
            <Text key={c} size="sm" style={{ overflowWrap: 'anywhere' }}>
              {c}
            </Text>
          ))}
          {typeof idNumber === 'string' && idNumber && (
            <Text size="sm">
              {I.customerId}: {typeof idType === 'string' && idType ? `${idType} ` : ''}
              {idNumber}
            </Text>
          )}
          {t.contact && contactsShown && (
            <Anchor component={Link} to={`/contacts/${t.contact.id}`} size="sm" data-testid="ticket-info-contact">
              {I.contactPage(t.contact.conversations)}
            </Anchor>
          )}
          {surveys && <SurveyLink ticketId={t.id} />}
          <Group gap={4}>
            <Badge variant="light" tt="none" data-testid="ticket-info-channel">
              {channelName(t.channel)}
            </Badge>
          </Group>
        </Field>
        <Select
          label={T.status}
          data={knownStatus ? options : [...options, { value: String(t.closed), label: '?', disabled: true }]}
          value={String(t.closed)}
          allowDeselect={false}
          disabled={busy === 'status'}
          onChange={(v) =>
            v !== null && v !== String(t.closed) && void run('status', () => ticketsApi.setStatus(t.id, Number(v)))
          }
          data-testid="ticket-info-status"
        />
        <Select
          label={I.priority}
          data={Object.entries(T.priorities).map(([value, label]) => ({ value: value || 'none', label }))}
          value={t.severity || 'none'}
          allowDeselect={false}
          disabled={busy === 'priority'}
          onChange={(v) =>
            v !== null && void run('priority', () => ticketsApi.setPriority(t.id, v === 'none' ? '' : v))
          }
          data-testid="ticket-info-priority"
        />
        <MultiSelect
          label={I.assignees}
          placeholder={t.assignee ? undefined : I.nobody}
          data={teamData}
          value={assigneeList(t.assignee)}
          searchable
          clearable
          disabled={busy === 'assign'}
          onChange={(v) => void run('assign', () => ticketsApi.assign(t.id, v))}
          data-testid="ticket-info-assignees"
          wrapperProps={{ 'data-testid': 'ticket-info-assignees-field' }}
        />
        <MultiSelect
          label={I.labels}
          placeholder={t.label.length ? undefined : I.noLabels}
          data={labelData}
          value={t.label.map(String)}
          searchable
          clearable
          disabled={busy === 'labels'}
          onChange={(v) => void run('labels', () => ticketsApi.setLabels(t.id, v.map(Number)))}
          data-testid="ticket-info-labels"
          wrapperProps={{ 'data-testid': 'ticket-info-labels-field' }}
        />
        <Select
          label={I.department}
          placeholder={I.noDepartment}
          data={(departments.data ?? []).map((d) => ({ value: String(d.id), label: d.name }))}
          value={t.department_id === null ? null : String(t.department_id)}
          // Picking the current department again keeps it; the clear button removes it.
          allowDeselect={false}
          clearable
          disabled={busy === 'department'}
          onChange={(v) => void run('department', () => ticketsApi.setDepartment(t.id, v === null ? null : Number(v)))}
          data-testid="ticket-info-department"
        />
        <Field label={I.campaign}>
          <Group gap="xs" justify="space-between" wrap="nowrap">
            {t.campaign_id === null ? (
              <Text size="sm" data-testid="ticket-info-campaign">
                {T.noCampaign}
              </Text>
            ) : (
              // The campaign's page: how its other tickets stand.
              <Anchor component={Link} to={`/campaign/${t.campaign_id}`} size="sm" data-testid="ticket-info-campaign">
                {t.campaignName}
              </Anchor>
            )}
            {t.campaign_id !== null && (
              <Button
                size="compact-xs"
                variant="subtle"
                onClick={() => void run('campaign', () => ticketsApi.setCampaign(t.id, null))}
              >
                {T.noCampaign}
              </Button>
            )}
          </Group>
          <CampaignPicker
            label={T.setCampaign}
            value={t.campaign_id === null ? '' : String(t.campaign_id)}
            onChange={(v) => v && void run('campaign', () => ticketsApi.setCampaign(t.id, Number(v)))}
          />
        </Field>
        <Products ticketId={t.id} />
        <Group grow align="flex-start">
          <Field label={I.received}>
            <Text size="sm">{ticketDate(t.created_at)}</Text>
          </Field>
          <Field label={I.updated}>
            <Text size="sm">{ticketDate(t.updated_at)}</Text>
          </Field>
        </Group>
        <SlaStatus ticketId={t.id} version={t.updated_at} />
        <TimeTracking ticketId={t.id} />
        {appointment && (
          <Field label={I.appointment}>
            <Group gap="xs">
              <Text size="sm">{formatDay(appointment)}</Text>
              {days && (
                <Badge size="xs" variant="light" color={days.urgent ? 'red' : 'gray'} tt="none">
                  {T.appointmentDays(days.days)}
                </Badge>
              )}
            </Group>
          </Field>
        )}
        <Field label={I.readBy}>
          <Text size="sm" data-testid="ticket-info-readers">
            {t.reader.length ? t.reader.map((u) => displayName(u)).join(', ') : I.nobodyYet}
          </Text>
        </Field>
        <TicketNotes ticketId={t.id} />
      </Stack>
    </Paper>
  );
}

/** The button that shows or hides the info panel, in the conversation's header. */
export function TicketInfoToggle({ open, onToggle }: { open: boolean; onToggle(): void }) {
  return (
    <Tooltip label={I.toggle}>
      <ActionIcon
        variant={open ? 'light' : 'subtle'}
        size="lg"
        aria-label={I.toggle}
        aria-pressed={open}
        onClick={onToggle}
        data-testid="ticket-info-toggle"
      >
        <IconLayoutSidebarRight size={20} />
      </ActionIcon>
    </Tooltip>
  );
}

/** A ticket's satisfaction survey link (made on first ask), to paste into a reply. */
function SurveyLink({ ticketId }: { ticketId: number }) {
  const [url, setUrl] = useState<string | null>(null);
  const asking = useMutation({
    mutationFn: () => ticketsApi.surveyLink(ticketId),
    onSuccess: ({ token }) => setUrl(`${window.location.origin}/survey/${token}`),
    onError: (e) => toast({ message: errorText(e), color: 'red' }),
  });
  const ask = () => asking.mutate();
  if (!url)
    return (
      <Button size="compact-xs" variant="subtle" onClick={() => void ask()} data-testid="ticket-survey-link">
        {SURVEY_STRINGS.link}
      </Button>
    );
  return (
    <Group gap={4} wrap="nowrap">
      <TextInput
        size="xs"
        readOnly
        value={url}
        aria-label={SURVEY_STRINGS.link}
        style={{ flex: 1 }}
        data-testid="ticket-survey-url"
      />
      <CopyButton value={url}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? 'Copied' : 'Copy'}>
            <ActionIcon variant="subtle" aria-label="Copy survey link" onClick={copy}>
              <IconCopy size={14} />
            </ActionIcon>
          </Tooltip>
        )}
      </CopyButton>
    </Group>
  );
}
