import { Alert, Button, Group, Modal, Select, Stack, TextInput } from '@mantine/core';
import { useState } from 'react';
import { HttpError } from '../../lib/http';
import { ticketsApi } from './api';
import { T } from './strings';

/** RT-21: an agent opens a ticket by hand (channel Manual); everyone's list gets it through createTicket. */
export function NewTicketModal({
  opened,
  onClose,
  onCreated,
}: {
  opened: boolean;
  onClose(): void;
  onCreated(id: number): void;
}) {
  const [f, setF] = useState({ title: '', name: '', email: '', phone: '', priority: '' });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <Modal opened={opened} onClose={onClose} title={T.newTicket}>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setError(null);
          setBusy(true);
          try {
            const r = await ticketsApi.create(f);
            setF({ title: '', name: '', email: '', phone: '', priority: '' });
            onCreated(r.data.id);
          } catch (err) {
            setError(err instanceof HttpError ? err.description : 'Failed');
          } finally {
            setBusy(false);
          }
        }}
      >
        <Stack gap="sm">
          {error && (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          )}
          <TextInput
            label={T.title}
            required
            maxLength={200}
            value={f.title}
            onChange={(e) => setF({ ...f, title: e.currentTarget.value })}
            data-autofocus
          />
          <TextInput
            label="Name"
            maxLength={200}
            value={f.name}
            onChange={(e) => setF({ ...f, name: e.currentTarget.value })}
          />
          <TextInput
            label="Email"
            maxLength={200}
            value={f.email}
            onChange={(e) => setF({ ...f, email: e.currentTarget.value })}
          />
          <TextInput
            label="Phone"
            maxLength={50}
            value={f.phone}
            onChange={(e) => setF({ ...f, phone: e.currentTarget.value })}
          />
          <Select
            label="Priority"
            data={[
              { value: '', label: 'None' },
              { value: 'H', label: 'High' },
              { value: 'M', label: 'Medium' },
              { value: 'L', label: 'Low' },
            ]}
            value={f.priority}
            allowDeselect={false}
            onChange={(v) => setF({ ...f, priority: v ?? '' })}
            comboboxProps={{ withinPortal: false }}
          />
          <Group justify="flex-end">
            <Button type="submit" loading={busy}>
              {T.create}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
