import { ActionIcon, Button, Group, Paper, Stack, Text, Textarea } from '@mantine/core';
import { NOTE_MAX, type Note } from '@parley/contracts';
import { IconPencil, IconTrash } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useDisplayName } from '../../lib/people';
import { toast } from '../../ui/toast';
import { conversationApi } from './api';
import { CONVERSATION_STRINGS as S } from './strings';

const fail = (e: unknown) => toast({ message: (e as Error).message, color: 'red' });

/** A note's text box: add or edit; the change arrives for everyone with `receiveNote`. */
export function NoteForm({
  initial,
  onSave,
  onDone,
}: {
  initial: string;
  onSave(text: string): Promise<unknown>;
  onDone(): void;
}) {
  const [text, setText] = useState(initial);
  const saving = useMutation({ mutationFn: onSave, onSuccess: () => onDone(), onError: fail });
  return (
    <Stack gap={4}>
      <Textarea
        aria-label={S.notePlaceholder}
        placeholder={S.notePlaceholder}
        value={text}
        maxLength={NOTE_MAX}
        autosize
        minRows={1}
        autoFocus
        onChange={(e) => setText(e.currentTarget.value)}
      />
      <Group gap="xs" justify="flex-end">
        <Button size="compact-sm" variant="default" onClick={onDone}>
          {S.cancel}
        </Button>
        <Button
          size="compact-sm"
          loading={saving.isPending}
          disabled={text.trim() === ''}
          onClick={() => saving.mutate(text.trim())}
        >
          {S.saveNote}
        </Button>
      </Group>
    </Stack>
  );
}

/** MSG-16, MSG-55: a message's notes, for the team only; the writer edits and deletes their own. */
export function Notes({ notes, me }: { notes: Note[]; me: string }) {
  const [editing, setEditing] = useState<number | null>(null);
  const displayName = useDisplayName();
  if (notes.length === 0) return null;
  return (
    <Stack gap={4} mt={4}>
      {notes.map((n) =>
        editing === n.id ? (
          <NoteForm
            key={n.id}
            initial={n.text}
            onSave={(t) => conversationApi.editNote(n.id, t)}
            onDone={() => setEditing(null)}
          />
        ) : (
          <Paper key={n.id} p={6} radius="sm" bg="var(--mantine-color-yellow-light)" data-testid="message-note">
            <Group gap={4} wrap="nowrap" align="flex-start">
              <Stack gap={0} style={{ flex: 1, minWidth: 0 }}>
                <Text size="xs" fw={600}>
                  {displayName(n.sender)}
                </Text>
                <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                  {n.text}
                </Text>
              </Stack>
              {n.sender === me && (
                <>
                  <ActionIcon size="sm" variant="subtle" aria-label={S.editNote} onClick={() => setEditing(n.id)}>
                    <IconPencil size={14} />
                  </ActionIcon>
                  <ActionIcon
                    size="sm"
                    variant="subtle"
                    color="red"
                    aria-label={S.deleteNote}
                    onClick={() => conversationApi.deleteNote(n.id).catch(fail)}
                  >
                    <IconTrash size={14} />
                  </ActionIcon>
                </>
              )}
            </Group>
          </Paper>
        ),
      )}
    </Stack>
  );
}
