import { Button, Checkbox, Group, Modal, Select, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { type ContactDetail, ID_TYPES, REFUSES_TO_PROVIDE, showsIdentityNumber } from '@parley/contracts';
import { useEffect, useState } from 'react';
import { contactKeys } from '../../lib/queryKeys';
import { useWrite } from '../../lib/useWrite';
import { contactsApi } from './api';
import { T } from './strings';

interface Draft {
  name: string;
  salutation: string;
  email: string;
  phone: string;
  id_type: string;
  refused: boolean;
  id_number: string;
  notes: string;
}

const draftOf = (c?: ContactDetail): Draft => ({
  name: c?.name ?? '',
  salutation: c?.salutation ?? '',
  email: '',
  phone: '',
  id_type: c?.id_type ?? 'None',
  refused: c?.id_number === REFUSES_TO_PROVIDE,
  id_number: c?.id_number === REFUSES_TO_PROVIDE ? '' : (c?.id_number ?? ''),
  notes: c?.notes ?? '',
});

/**
 * A new contact (name, salutation, an e-mail and a phone) or the edit of one (its fields; addresses are
 * changed on its page). The ID input works as the generic dialog's (SHELL-46): the number only for a real
 * ID type that was not refused.
 */
export function ContactFormModal({
  opened,
  contact,
  onClose,
  onSaved,
}: {
  opened: boolean;
  contact?: ContactDetail;
  onClose(): void;
  onSaved(id: number): void;
}) {
  const [d, setD] = useState<Draft>(() => draftOf(contact));
  const { run, busy, error, setError } = useWrite({ invalidate: contactKeys.all });
  useEffect(() => {
    if (opened) {
      setD(draftOf(contact));
      setError(null);
    }
  }, [opened, contact, setError]);
  const set = (patch: Partial<Draft>) => setD((x) => ({ ...x, ...patch }));

  const save = async () => {
    const fields = {
      name: d.name,
      salutation: d.salutation,
      notes: d.notes,
      id_type: d.id_type as (typeof ID_TYPES)[number],
      refused: d.refused,
      id_number: d.id_number,
    };
    let id = contact?.id;
    const saved = await run(async () => {
      if (id) await contactsApi.update(id, fields);
      else {
        const identifiers = [
          ...(d.email.trim() ? [{ kind: 'email' as const, value: d.email }] : []),
          ...(d.phone.trim() ? [{ kind: 'phone' as const, value: d.phone }] : []),
        ];
        id = await contactsApi.create({ ...fields, identifiers });
      }
    });
    if (saved && id) onSaved(id);
  };

  return (
    <Modal opened={opened} onClose={onClose} title={contact ? T.edit : T.newContact} centered>
      <Stack gap="sm">
        <Group grow align="flex-start">
          <TextInput
            label={T.name}
            value={d.name}
            onChange={(e) => set({ name: e.currentTarget.value })}
            data-autofocus
          />
          <TextInput
            label={T.salutation}
            value={d.salutation}
            onChange={(e) => set({ salutation: e.currentTarget.value })}
            maw={120}
          />
        </Group>
        {!contact && (
          <>
            <TextInput
              label={T.email}
              type="email"
              value={d.email}
              onChange={(e) => set({ email: e.currentTarget.value })}
            />
            <TextInput
              label={T.phone}
              placeholder="+60 12 345 6789"
              value={d.phone}
              onChange={(e) => set({ phone: e.currentTarget.value })}
            />
          </>
        )}
        <Select
          label={T.idType}
          data={[...ID_TYPES]}
          value={d.id_type}
          onChange={(v) => set({ id_type: v ?? 'None' })}
          allowDeselect={false}
        />
        {d.id_type !== 'None' && (
          <Checkbox
            label={REFUSES_TO_PROVIDE}
            checked={d.refused}
            onChange={(e) => set({ refused: e.currentTarget.checked })}
          />
        )}
        {showsIdentityNumber(d.id_type, d.refused) && (
          <TextInput
            label={T.idNumber}
            value={d.id_number}
            onChange={(e) => set({ id_number: e.currentTarget.value })}
          />
        )}
        <Textarea
          label={T.notes}
          autosize
          minRows={2}
          maxRows={8}
          value={d.notes}
          onChange={(e) => set({ notes: e.currentTarget.value })}
        />
        {error && (
          <Text c="red" size="sm" role="alert">
            {error}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {T.cancel}
          </Button>
          <Button onClick={() => void save()} loading={busy} data-testid="contact-save">
            {contact ? T.save : T.create}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
