import { APPOINTMENT_KEY, isEmailAddress, TICKET_IDENTITY_KEYS } from '@parley/contracts';
import { useQuery } from '@tanstack/react-query';
import { useDepartments } from '../../lib/api/departments';
import { statusApi } from '../../lib/api/status';
import { ticketsApi } from '../../lib/api/tickets';
import { storedKey } from '../../lib/encryptionKey';
import { labelKeys, statusKeys } from '../../lib/queryKeys';
import { sealText } from '../../lib/sealText';
import { useMe } from '../../lib/session';
import { useWrite } from '../../lib/useWrite';
import { type DialogInput, InputDialog, multiValue } from '../../ui/InputDialog';
import { T } from './strings';

const PRIORITIES: Record<string, string> = { None: '', High: 'H', Medium: 'M', Low: 'L' };

/**
 * RT-21: an agent opens a ticket by hand (channel Manual); everyone's list gets it through createTicket.
 * Built on the generic input dialog (SHELL-42, SHELL-43): text, select, date (the customer's preferred
 * appointment, TICKET-62) and id (the customer's identity document, SHELL-44) inputs. The date and the
 * identity go into the ticket's `other` (TICKET-15); the identity only when an ID type was chosen or the
 * customer refused, so a ticket where nobody asked does not read "Refuses to provide".
 * The customer (a name, e-mail or phone) and their first message: the message is stored as the customer's,
 * not the agent's. Assignees and labels are set with the ticket, in the same call.
 */
export function NewTicketModal({
  opened,
  onClose,
  onCreated,
}: {
  opened: boolean;
  onClose(): void;
  onCreated(id: number): void;
}) {
  const { run, busy, error, setError } = useWrite({ fallback: T.createFailed });
  const { accountId } = useMe();
  // CRYPT-01: a ticket can be encrypted only from a browser that can then write in it.
  const held = opened ? (storedKey(accountId)?.method ?? null) : null;
  const departments = useDepartments().data ?? [];
  const team = useQuery({ queryKey: statusKeys.online, queryFn: statusApi.online, staleTime: 60_000, enabled: opened });
  const labels = useQuery({
    queryKey: labelKeys.list,
    queryFn: ticketsApi.labels,
    staleTime: 60_000,
    enabled: opened,
  });
  const teamChoices = (team.data ?? []).map((u) => ({
    value: u.username,
    label: u.name ? `${u.name} (${u.username})` : u.username,
  }));
  const labelChoices = (labels.data ?? [])
    .filter((l) => !l.removed)
    .map((l) => ({ value: String(l.id), label: l.name }));
  const inputs: DialogInput[] = [
    { kind: 'text', name: 'title', label: T.title, required: true },
    { kind: 'text', name: 'name', label: 'Name' },
    { kind: 'text', name: 'email', label: 'Email' },
    { kind: 'text', name: 'phone', label: 'Phone' },
    { kind: 'textarea', name: 'message', label: T.newTicketMessage },
    ...(teamChoices.length
      ? [{ kind: 'multiselect' as const, name: 'assignee', label: T.newTicketAssignees, choices: teamChoices }]
      : []),
    ...(labelChoices.length
      ? [{ kind: 'multiselect' as const, name: 'label', label: T.newTicketLabels, choices: labelChoices }]
      : []),
    { kind: 'select', name: 'priority', label: 'Priority', options: Object.keys(PRIORITIES) },
    ...(departments.length
      ? [{ kind: 'select' as const, name: 'department', label: 'Department', options: departments.map((d) => d.name) }]
      : []),
    { kind: 'date', name: 'appointment', label: APPOINTMENT_KEY },
    { kind: 'id', name: 'identity', label: T.customerId },
    ...(held
      ? [
          {
            kind: 'option' as const,
            name: 'encrypt',
            label: T.newTicketEncrypt,
            options: [T.newTicketPlain, T.newTicketEncryptWith(held)],
            initial: T.newTicketPlain,
          },
        ]
      : []),
  ];

  async function create(v: Record<string, string>) {
    setError(null);
    const email = (v.email ?? '').trim();
    if (email && !isEmailAddress(email)) return setError(`Please check the email address. ${email}`);
    if ((v.message ?? '').trim() && !(v.name ?? '').trim() && !email && !(v.phone ?? '').trim())
      return setError(T.newTicketCustomerRequired);
    let id = 0;
    const created = await run(async () => {
      const other: Record<string, string> = {};
      if (v.appointment) other[APPOINTMENT_KEY] = v.appointment;
      if (v.identity_type && (v.identity_type !== 'None' || v.identity_refused === 'yes')) {
        other[TICKET_IDENTITY_KEYS.type] = v.identity_type;
        other[TICKET_IDENTITY_KEYS.number] = v.identity ?? '';
      }
      const encryption = held && v.encrypt === T.newTicketEncryptWith(held) ? held : '';
      let message = (v.message ?? '').trim();
      if (encryption && message) {
        const sealed = await sealText(accountId, encryption, message);
        if ('error' in sealed) throw new Error(sealed.error);
        message = sealed.text;
      }
      const r = await ticketsApi.create({
        title: v.title ?? '',
        name: v.name ?? '',
        email: v.email ?? '',
        phone: v.phone ?? '',
        priority: PRIORITIES[v.priority ?? 'None'] ?? '',
        department_id: departments.find((d) => d.name === v.department)?.id ?? null,
        other,
        message,
        encryption_method: encryption,
        assignee: multiValue(v.assignee),
        label: multiValue(v.label).map(Number),
      });
      id = r.data.id;
    });
    if (created) onCreated(id);
  }

  return (
    <InputDialog
      opened={opened}
      title={T.newTicket}
      description={T.newTicketHelp}
      error={error}
      inputs={inputs}
      submitLabel={T.create}
      busy={busy}
      onClose={() => {
        setError(null);
        onClose();
      }}
      onSubmit={(v) => void create(v)}
    />
  );
}
