import { Button, Code, CopyButton, Group, NumberInput, Select, Switch, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { LIVECHAT_STRINGS as L, type LiveChatSettings } from '@parley/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useDepartments } from '../../lib/api/departments';
import { api } from '../../lib/http';
import { liveChatKeys } from '../../lib/queryKeys';
import { SettingsCard } from '../../ui/SettingsCard';

/** The widget snippet a website pastes (with this account's token); the same link as a plain page. */
export const embedSnippet = (origin: string, token: string) =>
  `<script src="${origin}/widget.js" data-token="${token}" async></script>`;

/**
 * Settings -> Live chat (admins): the embed snippet and visitor link with the account's token, and
 * automatic offering (department, seconds an agent has to accept).
 */
export function LiveChatSettingsCard() {
  const qc = useQueryClient();
  const departments = useDepartments();
  const settings = useQuery({
    queryKey: liveChatKeys.settings,
    queryFn: async () => (await api<{ data: LiveChatSettings }>('GET', '/api/livechat/settings')).data,
  });
  const [draft, setDraft] = useState<LiveChatSettings | null>(null);
  useEffect(() => {
    if (settings.data) setDraft(settings.data);
  }, [settings.data]);
  const write = useMutation({
    mutationFn: (d: LiveChatSettings) =>
      api<{ data: LiveChatSettings }>('POST', '/api/livechat/settings', {
        auto_offer: d.auto_offer,
        department_id: d.department_id,
        offer_seconds: d.offer_seconds,
      }),
    onSuccess: (r) => {
      qc.setQueryData(liveChatKeys.settings, r.data);
      notifications.show({ color: 'green', message: 'Saved.' });
    },
    onError: (err) => notifications.show({ color: 'red', message: err.message }),
  });
  if (!draft) return null;
  const origin = window.location.origin;
  const snippet = embedSnippet(origin, draft.token);
  const link = `${origin}/register/livechat/${draft.token}`;
  const save = () => write.mutate(draft);
  return (
    <SettingsCard title={L.settingsTitle}>
      <Text size="sm">{L.embed}</Text>
      <Group wrap="nowrap" align="flex-start">
        <Code block style={{ flex: 1, whiteSpace: 'pre-wrap', wordBreak: 'break-all' }} data-testid="livechat-snippet">
          {snippet}
        </Code>
        <CopyButton value={snippet}>
          {({ copied, copy }) => (
            <Button size="xs" variant="light" onClick={copy}>
              {copied ? 'Copied' : 'Copy'}
            </Button>
          )}
        </CopyButton>
      </Group>
      <Text size="sm">
        {L.link}:{' '}
        <Text component="a" href={link} target="_blank" rel="noreferrer" size="sm" c="blue" data-testid="livechat-link">
          {link}
        </Text>
      </Text>
      <Switch
        label={L.autoOffer}
        checked={draft.auto_offer}
        onChange={(e) => setDraft({ ...draft, auto_offer: e.currentTarget.checked })}
      />
      <Select
        label={L.department}
        data={[
          { value: '', label: 'Any department' },
          ...(departments.data ?? []).map((d) => ({ value: String(d.id), label: d.name })),
        ]}
        value={draft.department_id === null ? '' : String(draft.department_id)}
        allowDeselect={false}
        onChange={(v) => setDraft({ ...draft, department_id: v ? Number(v) : null })}
        maw={320}
      />
      <NumberInput
        label={L.offerSeconds}
        min={5}
        max={600}
        value={draft.offer_seconds}
        onChange={(v) => setDraft({ ...draft, offer_seconds: Number(v) || 5 })}
        maw={320}
      />
      <Group>
        <Button onClick={save}>Save</Button>
      </Group>
    </SettingsCard>
  );
}
