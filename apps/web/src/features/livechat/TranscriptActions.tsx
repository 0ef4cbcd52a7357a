import { Button, Group, Menu, Modal, Stack, Text, TextInput, Tooltip } from '@mantine/core';
import { TRANSCRIPT_STRINGS as T, type TranscriptSentAnswer } from '@parley/contracts';
import { useState } from 'react';
import { api, errorText } from '../../lib/http';
import { toast } from '../../ui/toast';

/**
 * PLAN-21 (design): a chat's transcript for the agent: Email transcript (to the visitor's address, or one
 * typed) and Download transcript (a text file). Below Basic the button says why instead.
 */
export function TranscriptActions({ ticketId, allowed }: { ticketId: number; allowed: boolean }) {
  const [open, setOpen] = useState(false);
  const [to, setTo] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  if (!allowed)
    return (
      <Tooltip label={T.notOnPlan} multiline w={260} events={{ hover: true, focus: true, touch: true }}>
        <Button
          size="xs"
          variant="default"
          data-disabled
          aria-disabled
          aria-description={T.notOnPlan}
          onClick={(e) => e.preventDefault()}
          data-testid="transcript-off-plan"
        >
          Transcript
        </Button>
      </Tooltip>
    );
  const send = async () => {
    setBusy(true);
    setError('');
    try {
      const r = await api<TranscriptSentAnswer>('POST', '/api/livechat/transcript/email', {
        id: ticketId,
        ...(to.trim() ? { to: to.trim() } : {}),
      });
      setOpen(false);
      setTo('');
      toast({ message: T.sent(r.to) });
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Menu position="bottom-end" withinPortal>
        <Menu.Target>
          <Button size="xs" variant="default" data-testid="transcript-menu">
            Transcript
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Item onClick={() => setOpen(true)}>{T.email}</Menu.Item>
          <Menu.Item component="a" href={`/api/livechat/transcript/${ticketId}`} download>
            {T.download}
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
      <Modal opened={open} onClose={() => setOpen(false)} title={T.email} centered size="sm">
        <Stack>
          <TextInput
            label={T.sendTo}
            description="Leave empty to send it to the visitor's address."
            type="email"
            value={to}
            onChange={(e) => setTo(e.currentTarget.value)}
            error={error || undefined}
            data-autofocus
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setOpen(false)}>
              Cancel
            </Button>
            <Button loading={busy} onClick={() => void send()} data-testid="transcript-send">
              {T.send2}
            </Button>
          </Group>
          <Text size="xs" c="dimmed">
            {T.sendHint}
          </Text>
        </Stack>
      </Modal>
    </>
  );
}
