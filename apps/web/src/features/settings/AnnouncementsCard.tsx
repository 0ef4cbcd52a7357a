import { Alert, Button, Card, Group, Select, Stack, Text, Textarea, Title } from '@mantine/core';
import type { Announcement } from '@parley/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import dayjs from 'dayjs';
import { useState } from 'react';
import { api, HttpError } from '../../lib/http';

/** SHELL-37: an admin publishes the banner everyone in the account sees, or removes it. */
export function AnnouncementsCard() {
  const qc = useQueryClient();
  const current = useQuery({
    queryKey: ['announcement'],
    queryFn: () =>
      api<{ announcement: Announcement | null }>('GET', '/api/announcement').then((r) => r.announcement ?? null),
  });
  const [message, setMessage] = useState('');
  const [level, setLevel] = useState<'info' | 'warning'>('info');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function run(fn: () => Promise<unknown>) {
    setBusy(true);
    setError(null);
    try {
      await fn();
      await qc.invalidateQueries({ queryKey: ['announcement'] });
    } catch (err) {
      setError(err instanceof HttpError ? err.description : 'Failed');
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card withBorder radius="md" padding="lg">
      <Stack>
        <Title order={3} size="h4">
          Announcement
        </Title>
        <Text size="sm" c="dimmed">
          A banner at the top of everyone's screen in this account, until you remove or replace it.
        </Text>
        {current.data && (
          <Alert color={current.data.level === 'warning' ? 'orange' : 'blue'} data-testid="current-announcement">
            <Group justify="space-between">
              <div>
                <Text size="sm">{current.data.message}</Text>
                <Text size="xs" c="dimmed">
                  {current.data.created_by} · {dayjs(current.data.created_at).format('YYYY-MM-DD HH:mm')}
                </Text>
              </div>
              <Button
                size="xs"
                variant="default"
                loading={busy}
                onClick={() => run(() => api('DELETE', '/api/announcement'))}
              >
                Remove
              </Button>
            </Group>
          </Alert>
        )}
        {error && (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        <Textarea
          label="Message"
          value={message}
          maxLength={500}
          autosize
          minRows={2}
          onChange={(e) => setMessage(e.currentTarget.value)}
        />
        <Group align="flex-end">
          <Select
            label="Level"
            value={level}
            onChange={(v) => v && setLevel(v as 'info' | 'warning')}
            data={[
              { value: 'info', label: 'Information' },
              { value: 'warning', label: 'Warning' },
            ]}
            allowDeselect={false}
            w={180}
          />
          <Button
            loading={busy}
            disabled={message.trim() === ''}
            onClick={() =>
              run(async () => {
                await api('POST', '/api/announcement', { message: message.trim(), level });
                setMessage('');
              })
            }
          >
            Publish
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
