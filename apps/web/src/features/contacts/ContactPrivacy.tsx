import { Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { RETENTION_STRINGS as R } from '@parley/contracts';
import { IconDownload, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { useWrite } from '../../lib/useWrite';
import { toast } from '../../ui/toast';
import { contactsApi } from './api';

/**
 * On a contact's page, for admins: "Export data" downloads the contact's ZIP (contact.json and its files);
 * "Erase contact" asks for the contact's name or id typed, then erases every conversation of it and the
 * contact, and calls `onErased`.
 */
export function ContactPrivacy({ contact, onErased }: { contact: { id: number; name: string }; onErased(): void }) {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const { run, busy, error, setError } = useWrite();
  const close = () => {
    setOpen(false);
    setTyped('');
    setError(null);
  };
  const erase = async () => {
    const ok = await run(() => contactsApi.erase(contact.id, typed));
    if (!ok) return;
    toast({ message: R.erased });
    close();
    onErased();
  };
  return (
    <>
      <Group gap="xs">
        <Button
          component="a"
          href={contactsApi.dataExportUrl(contact.id)}
          download
          variant="default"
          leftSection={<IconDownload size={16} />}
          data-testid="contact-export-data"
        >
          {R.exportData}
        </Button>
        <Button
          variant="light"
          color="red"
          leftSection={<IconTrash size={16} />}
          onClick={() => setOpen(true)}
          data-testid="contact-erase"
        >
          {R.eraseContact}
        </Button>
      </Group>
      <Modal opened={open} onClose={close} title={R.eraseTitle}>
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void erase();
          }}
        >
          <Stack>
            <Text size="sm">{R.eraseHint}</Text>
            <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
              {contact.name} · {contact.id}
            </Text>
            <TextInput
              label={R.eraseConfirmLabel}
              value={typed}
              onChange={(e) => setTyped(e.currentTarget.value)}
              error={error}
              data-autofocus
              data-testid="contact-erase-typed"
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                {R.cancel}
              </Button>
              <Button
                type="submit"
                color="red.8"
                loading={busy}
                disabled={typed.trim() === ''}
                data-testid="contact-erase-confirm"
              >
                {R.erase}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
