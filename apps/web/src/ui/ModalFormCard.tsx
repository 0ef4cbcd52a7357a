import { ActionIcon, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { IconPencil, IconPlus, IconTrash } from '@tabler/icons-react';
import { type ReactNode, useState } from 'react';
import { SettingsCard } from './SettingsCard';

/**
 * A settings card whose entries are added and changed in a form in a modal (canned replies, macros): the
 * Add button at the right of the title opens the form on `blank()`; the list gets `edit` to open it on an
 * entry. The modal is titled `addLabel` for a new entry, `editTitle` for one with an id; `form` draws it
 * and calls `onClose` (cancelled) or `onSaved` (the modal closes and the card's `onSaved` reads the list again).
 * `add` 'disabled' greys the Add button (a limit is reached), 'hidden' leaves it out (nothing can be added).
 */
export function ModalFormCard<D extends { id?: number }>({
  title,
  hint,
  testId,
  addLabel,
  addTestId,
  editTitle,
  blank,
  form,
  onSaved,
  add = 'enabled',
  children,
}: {
  title: ReactNode;
  hint: ReactNode;
  testId: string;
  addLabel: string;
  addTestId: string;
  editTitle: string;
  blank: () => D;
  form: (draft: D, done: { onClose(): void; onSaved(): void }) => ReactNode;
  onSaved(): void;
  add?: 'enabled' | 'disabled' | 'hidden';
  children: (edit: (draft: D) => void) => ReactNode;
}) {
  const [editing, setEditing] = useState<D | null>(null);
  const close = () => setEditing(null);
  return (
    <SettingsCard
      title={title}
      hint={hint}
      testId={testId}
      aside={
        add !== 'hidden' && (
          <Button
            leftSection={<IconPlus size={16} />}
            onClick={() => setEditing(blank())}
            disabled={add === 'disabled'}
            data-testid={addTestId}
          >
            {addLabel}
          </Button>
        )
      }
    >
      {children(setEditing)}
      <Modal opened={editing !== null} onClose={close} title={editing?.id ? editTitle : addLabel} size="lg">
        {editing &&
          form(editing, {
            onClose: close,
            onSaved: () => {
              close();
              onSaved();
            },
          })}
      </Modal>
    </SettingsCard>
  );
}

/** The Edit and Delete buttons of one entry of a list, named after it for screen readers. */
export function EntryActions({
  name,
  editLabel,
  deleteLabel,
  onEdit,
  onDelete,
  justify,
}: {
  name: string;
  editLabel: string;
  deleteLabel: string;
  onEdit(): void;
  onDelete(): void;
  justify?: 'flex-end';
}) {
  return (
    <Group gap={4} wrap="nowrap" justify={justify}>
      <ActionIcon variant="subtle" aria-label={`${editLabel} ${name}`} onClick={onEdit}>
        <IconPencil size={16} />
      </ActionIcon>
      <ActionIcon variant="subtle" color="red" aria-label={`${deleteLabel} ${name}`} onClick={onDelete}>
        <IconTrash size={16} />
      </ActionIcon>
    </Group>
  );
}

/** The foot of a form in a modal: the save's error, then Cancel and Save at the right. */
export function FormActions({
  error,
  testId,
  cancelLabel,
  saveLabel,
  saving,
  onCancel,
  onSave,
}: {
  error: string | null;
  /** Names the error (`${testId}-error`) and the Save button (`${testId}-save`) for tests. */
  testId: string;
  cancelLabel: string;
  saveLabel: string;
  saving: boolean;
  onCancel(): void;
  onSave(): void;
}) {
  return (
    <>
      {error && (
        // A darker red in light and a lighter one in dark: the plain red fails contrast on both (AA).
        <Text
          c="light-dark(var(--mantine-color-red-9), var(--mantine-color-red-4))"
          size="sm"
          data-testid={`${testId}-error`}
        >
          {error}
        </Text>
      )}
      <Group justify="flex-end">
        <Button variant="default" onClick={onCancel}>
          {cancelLabel}
        </Button>
        <Button onClick={onSave} loading={saving} data-testid={`${testId}-save`}>
          {saveLabel}
        </Button>
      </Group>
    </>
  );
}

/**
 * The confirmation before an entry of a list is deleted: `item` set opens it with `message(item)`; Cancel
 * closes it, the red button calls `onConfirm(item)`. Names the red button `${testId}` for tests.
 */
export function ConfirmDelete<T>({
  item,
  title,
  message,
  cancelLabel,
  confirmLabel,
  testId,
  onClose,
  onConfirm,
}: {
  item: T | null;
  title: string;
  message(item: T): ReactNode;
  cancelLabel: string;
  confirmLabel: string;
  testId: string;
  onClose(): void;
  onConfirm(item: T): void;
}) {
  return (
    <Modal opened={item !== null} onClose={onClose} title={title}>
      <Stack>
        {item !== null && message(item)}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {cancelLabel}
          </Button>
          <Button color="red.8" onClick={() => item !== null && onConfirm(item)} data-testid={testId}>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
