import { ActionIcon, Button, Group, Paper, Stack, Text, Textarea } from '@mantine/core';
import { TICKET_NOTE_MAX, type TicketNote } from '@parley/contracts';
import { IconTrash } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { listDate } from '../../lib/dates';
import { api } from '../../lib/http';
import { useDisplayName } from '../../lib/people';
import { ticketKeys } from '../../lib/queryKeys';
import { realtime } from '../../lib/realtime';
import { useSession } from '../../lib/session';
import { toast } from '../../ui/toast';
import { T } from './strings';

const N = T.notes;
const notesApi = {
  list: (ticketId: number) =>
    api<{ result: 'success'; data: TicketNote[] }>('GET', `/api/ticket/notes/${ticketId}`).then((r) => r.data),
  add: (ticketId: number, text: string) =>
    api<{ result: 'success'; data: TicketNote }>('POST', '/api/ticket/notes/add', { ticketId, text }),
  remove: (id: number) => api<{ result: 'success' }>('POST', '/api/ticket/notes/delete', { id }),
};

/**
 * The ticket's own notes in its side panel: the team's remarks on the whole ticket, never sent to the
 * customer. `@username` tells that agent (the server's mention notification). Kept live with `ticketNote`.
 */
export function TicketNotes({ ticketId }: { ticketId: number }) {
  const qc = useQueryClient();
  const { state } = useSession();
  const session = state.phase === 'signedIn' ? state.session : undefined;
  const me = { username: session?.adminUsername ?? '', admin: session?.type === 'admin' };
  const displayName = useDisplayName();
  const q = useQuery({ queryKey: ticketKeys.notes(ticketId), queryFn: () => notesApi.list(ticketId) });
  const [text, setText] = useState('');
  useEffect(() => {
    const refresh = (raw: unknown) => {
      if ((raw as { ticketId?: number }).ticketId === ticketId)
        void qc.invalidateQueries({ queryKey: ticketKeys.notes(ticketId) });
    };
    const off1 = realtime.on('ticketNote', refresh);
    const off2 = realtime.on('ticketNoteDeleted', refresh);
    return () => {
      off1();
      off2();
    };
  }, [qc, ticketId]);

  const adding = useMutation({
    mutationFn: (note: string) => notesApi.add(ticketId, note),
    onSuccess: async () => {
      setText('');
      await qc.invalidateQueries({ queryKey: ticketKeys.notes(ticketId) });
    },
    onError: (e) => toast({ message: e.message, color: 'red' }),
  });
  const add = () => adding.mutate(text.trim());
  const busy = adding.isPending;
  const notes = q.data ?? [];
  return (
    <Stack gap={6} data-testid="ticket-notes">
      <Text size="xs" fw={600} c="dimmed" tt="uppercase">
        {N.title}
      </Text>
      <Text size="xs" c="dimmed">
        {N.help}
      </Text>
      {notes.length === 0 && q.isSuccess && (
        <Text size="sm" c="dimmed">
          {N.none}
        </Text>
      )}
      {notes.map((n) => (
        <Paper key={n.id} p={6} radius="sm" bg="var(--mantine-color-yellow-light)" data-testid="ticket-note">
          <Group gap={4} wrap="nowrap" align="flex-start">
            <Stack gap={0} style={{ flex: 1, minWidth: 0 }}>
              <Group gap={6}>
                <Text size="xs" fw={600}>
                  {n.senderName && n.senderName !== n.sender ? n.senderName : displayName(n.sender)}
                </Text>
                <Text size="xs" c="dimmed">
                  {listDate(n.created_at)}
                </Text>
              </Group>
              <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                {n.text}
              </Text>
            </Stack>
            {(n.sender === me.username || me.admin) && (
              <ActionIcon
                size="sm"
                variant="subtle"
                color="red"
                aria-label={N.remove}
                onClick={() =>
                  notesApi
                    .remove(n.id)
                    .then(() => qc.invalidateQueries({ queryKey: ticketKeys.notes(ticketId) }))
                    .catch((e: Error) => toast({ message: e.message, color: 'red' }))
                }
              >
                <IconTrash size={14} />
              </ActionIcon>
            )}
          </Group>
        </Paper>
      ))}
      <Textarea
        aria-label={N.placeholder}
        placeholder={N.placeholder}
        value={text}
        maxLength={TICKET_NOTE_MAX}
        autosize
        minRows={2}
        onChange={(e) => setText(e.currentTarget.value)}
        data-testid="ticket-note-input"
      />
      <Group justify="flex-end">
        <Button size="compact-sm" loading={busy} disabled={text.trim() === ''} onClick={() => void add()}>
          {N.add}
        </Button>
      </Group>
    </Stack>
  );
}
