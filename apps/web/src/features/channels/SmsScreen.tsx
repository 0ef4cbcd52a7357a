import {
  Alert,
  Badge,
  Button,
  Group,
  Paper,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { SMS_STRINGS, type SmsSendAnswer, type SmsThreadsAnswer, ticketStatusName } from '@parley/contracts';
import { IconSend } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { listDate } from '../../lib/dates';
import { api } from '../../lib/http';
import { smsKeys } from '../../lib/queryKeys';
import { useWrite } from '../../lib/useWrite';

const smsApi = {
  threads: () => api<SmsThreadsAnswer>('GET', '/api/sms/threads'),
  send: (to: string, message: string) => api<SmsSendAnswer>('POST', '/api/sms/send', { to, message }),
};

/**
 * `/sms`: text a customer from the account's SMS number (the conversation opens once the text is taken), and
 * the SMS conversations, newest first, each opening in the ticket view. Without a connected number it says so
 * once and offers no form.
 */
export function SmsScreen() {
  const navigate = useNavigate();
  const q = useQuery({ queryKey: smsKeys.threads, queryFn: smsApi.threads });
  const [to, setTo] = useState('');
  const [message, setMessage] = useState('');
  const { run, busy, error } = useWrite({ invalidate: smsKeys.threads });
  const send = async () => {
    let ticketId = 0;
    const sent = await run(async () => {
      ticketId = (await smsApi.send(to, message)).data.ticketId;
    });
    if (sent) navigate(`/ticket/${ticketId}`);
  };
  const threads = q.data?.data ?? [];
  return (
    <Stack gap="md" w="100%" maw={760} data-testid="sms-screen">
      <Title order={1} size="h2">
        {SMS_STRINGS.title}
      </Title>
      {q.data && !q.data.connected && (
        <Alert color="yellow" data-testid="sms-not-connected">
          {SMS_STRINGS.notConnected}
        </Alert>
      )}
      {q.data?.connected && (
        <Paper withBorder radius="md" p="md">
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void send();
            }}
          >
            <Stack gap="sm">
              <Text size="sm" c="dimmed">
                {SMS_STRINGS.intro}
              </Text>
              <TextInput
                label={SMS_STRINGS.to}
                description={SMS_STRINGS.toHint}
                inputMode="tel"
                autoComplete="off"
                value={to}
                onChange={(e) => setTo(e.currentTarget.value)}
                data-testid="sms-to"
              />
              <Textarea
                label={SMS_STRINGS.message}
                autosize
                minRows={2}
                maxRows={6}
                maxLength={1600}
                value={message}
                onChange={(e) => setMessage(e.currentTarget.value)}
                data-testid="sms-message"
              />
              {error && (
                <Text size="sm" c="light-dark(var(--mantine-color-red-9), var(--mantine-color-red-4))" role="alert">
                  {error}
                </Text>
              )}
              <Group justify="flex-end">
                <Button
                  type="submit"
                  loading={busy}
                  leftSection={<IconSend size={16} />}
                  disabled={!to.trim() || !message.trim()}
                  data-testid="sms-send"
                >
                  {SMS_STRINGS.send}
                </Button>
              </Group>
            </Stack>
          </form>
        </Paper>
      )}
      <Title order={2} size="h4">
        {SMS_STRINGS.threads}
      </Title>
      {q.data && threads.length === 0 && (
        <Text c="dimmed" data-testid="sms-empty">
          {SMS_STRINGS.empty}
        </Text>
      )}
      <Stack gap={6}>
        {threads.map((t) => (
          <UnstyledButton key={t.ticketId} onClick={() => navigate(`/ticket/${t.ticketId}`)} data-testid="sms-thread">
            <Paper withBorder radius="sm" px="sm" py="xs">
              <Group justify="space-between" wrap="nowrap" gap="xs">
                <Stack gap={0} miw={0}>
                  <Text fw={600} truncate="end">
                    {t.name === t.number ? t.number : `${t.name} · ${t.number}`}
                  </Text>
                  <Text size="xs" c="dimmed">
                    #{t.ticketNumber}
                  </Text>
                </Stack>
                <Group gap="xs" wrap="nowrap">
                  <Badge variant="light" color="gray">
                    {ticketStatusName(t.closed)}
                  </Badge>
                  <Text size="xs" c="dimmed">
                    {listDate(t.updatedAt)}
                  </Text>
                </Group>
              </Group>
            </Paper>
          </UnstyledButton>
        ))}
      </Stack>
    </Stack>
  );
}
