import { Alert, Button, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { CALL_STRINGS, type CallConfig, CallConfigInput } from '@parley/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, errorText } from '../../lib/http';
import { callConfigKey } from '../../lib/queryKeys';
import { useSession } from '../../lib/session';
import { toast } from '../../ui/toast';

const callApi = {
  config: () => api<{ result: 'success'; data: CallConfig }>('GET', '/api/call/config').then((r) => r.data),
  save: (sip_ws_url: string | null) =>
    api<{ result: 'success'; data: CallConfig }>('POST', '/api/call/config', { sip_ws_url }).then((r) => r.data),
};

/**
 * CALL-43, CALL-44 (design): Call Configurations. The account's call server (SIP over WebSocket) that its
 * agents' softphones register at; empty uses the installation's. Admins and users with `call_settings`
 * change it; others see it. The indicator in the navigation panel follows at the next auth check, which
 * saving starts at once.
 */
export function CallConfigScreen() {
  const qc = useQueryClient();
  const { state, loop } = useSession();
  const session = state.phase === 'signedIn' ? state.session : null;
  const allowed = session?.type === 'admin' || Boolean(session?.permission?.includes('call_settings'));
  const q = useQuery({ queryKey: callConfigKey, queryFn: callApi.config });
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const write = useMutation({
    mutationFn: (url: string | null) => callApi.save(url),
    onSuccess: (r) => {
      qc.setQueryData(callConfigKey, r);
      toast({ message: CALL_STRINGS.saved });
      void loop.checkNow();
    },
    onError: (err) => setError(errorText(err, CALL_STRINGS.badUrl)),
  });
  useEffect(() => setValue(q.data?.sip_ws_url ?? ''), [q.data?.sip_ws_url]);

  function save() {
    const checked = CallConfigInput.safeParse({ sip_ws_url: value });
    if (!checked.success) return setError(checked.error.issues[0]?.message ?? CALL_STRINGS.badUrl);
    setError(null);
    write.mutate(checked.data.sip_ws_url);
  }

  return (
    <Stack gap="md" maw={640}>
      <Title order={1} size="h2">
        Call Configurations
      </Title>
      <Paper withBorder radius="md" p="md">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <Stack gap="sm">
            <Title order={2} size="h4">
              Call server
            </Title>
            <Text size="sm" c="dimmed">
              The SIP over WebSocket address your agents' softphones connect to, such as wss://pbx.example.com:8089/ws.
              Leave it empty to use{' '}
              {q.data?.default_url ? <b>{q.data.default_url}</b> : "this server's default (none is set)"}.
            </Text>
            <TextInput
              label="Address"
              placeholder={q.data?.default_url || 'wss://'}
              value={value}
              onChange={(e) => setValue(e.currentTarget.value)}
              disabled={!allowed || q.isLoading}
              error={error}
              data-testid="call-server-url"
            />
            {!allowed && (
              <Alert color="gray" py="xs">
                {CALL_STRINGS.notAllowed}
              </Alert>
            )}
            <Group justify="flex-end">
              <Button type="submit" loading={write.isPending} disabled={!allowed}>
                Save
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
    </Stack>
  );
}
