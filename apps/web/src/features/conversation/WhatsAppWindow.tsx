import { Alert, Button, Group, Paper, Stack, Text, TextInput } from '@mantine/core';
import { CHANNEL_STRINGS, KIND_NAMES, kindOfChannel } from '@parley/contracts';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { channelKeys } from '../../lib/queryKeys';
import { useWrite } from '../../lib/useWrite';
import { toast } from '../../ui/toast';
import { conversationApi } from './api';
import { CONVERSATION_STRINGS as S } from './strings';

/** The longest a timer is set for (setTimeout's limit is about 24.8 days; the window is a day at most). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * In place of the composer once Messenger's or Instagram's window has closed: why nothing can be sent until
 * the customer writes again (message tags are not offered).
 */
export function MetaWindowClosed({ channel }: { channel: string }) {
  const kind = kindOfChannel(channel);
  return (
    <Alert color="yellow" p="xs" data-testid="meta-window-closed">
      <Text size="sm">{CHANNEL_STRINGS.metaWindowClosed(kind ? KIND_NAMES[kind] : channel)}</Text>
    </Alert>
  );
}

/**
 * Whether Meta's 24-hour window of a WHATSAPP, FB_PM or IG_PM ticket is open: asked when the ticket opens, again when a
 * new customer message arrives (it opens the window again), and when the window's own end comes.
 */
export function useWhatsAppWindow(ticketId: number, enabled: boolean, lastCustomerMessageId: number) {
  const q = useQuery({
    queryKey: channelKeys.window(ticketId),
    queryFn: () => conversationApi.channelWindow(ticketId),
    enabled,
  });
  const { refetch } = q;
  const seen = useRef(lastCustomerMessageId);
  useEffect(() => {
    if (!enabled || seen.current === lastCustomerMessageId) return;
    seen.current = lastCustomerMessageId;
    void refetch();
  }, [enabled, lastCustomerMessageId, refetch]);
  const closesAt = q.data?.open ? q.data.closesAt : null;
  useEffect(() => {
    if (!enabled || closesAt === null) return;
    const t = setTimeout(() => void refetch(), Math.min(MAX_TIMER_MS, Math.max(0, closesAt - Date.now()) + 1000));
    return () => clearTimeout(t);
  }, [enabled, closesAt, refetch]);
  return q;
}

/**
 * In place of the composer once WhatsApp's window has closed: why nothing else can be sent, and a small form
 * for an approved template (its name and language). The server's refusal shows below it in its own words.
 */
export function WhatsAppTemplateForm({ ticketId, onSent }: { ticketId: number; onSent(): void }) {
  const [template, setTemplate] = useState('');
  const [language, setLanguage] = useState('en_US');
  const { run, busy, error } = useWrite();
  const send = async () => {
    if (
      await run(() => conversationApi.sendTemplate({ ticketId, template: template.trim(), language: language.trim() }))
    ) {
      toast({ message: S.templateSent });
      setTemplate('');
      onSent();
    }
  };
  return (
    <Paper withBorder p="sm" data-testid="whatsapp-window-closed">
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <Stack gap="xs">
          <Alert color="yellow" p="xs" data-testid="whatsapp-window-words">
            <Text size="sm">{CHANNEL_STRINGS.windowClosed}</Text>
          </Alert>
          {/* The name, then the language and Send: it fits the narrow middle column of a desk and a phone. */}
          <TextInput
            label={S.templateName}
            placeholder="order_update"
            autoComplete="off"
            spellCheck={false}
            value={template}
            onChange={(e) => setTemplate(e.currentTarget.value)}
            data-testid="template-name"
          />
          <Group gap="xs" align="flex-end" wrap="nowrap">
            <TextInput
              label={S.templateLanguage}
              placeholder="en_US"
              autoComplete="off"
              spellCheck={false}
              value={language}
              onChange={(e) => setLanguage(e.currentTarget.value)}
              style={{ flex: 1, minWidth: 0 }}
              data-testid="template-language"
            />
            <Button type="submit" loading={busy} data-testid="template-send" style={{ flexShrink: 0 }}>
              {S.sendTemplate}
            </Button>
          </Group>
          <Text size="xs" c="dimmed">
            {S.templateHint}
          </Text>
          {error && (
            <Text
              size="sm"
              c="light-dark(var(--mantine-color-red-9), var(--mantine-color-red-4))"
              role="alert"
              data-testid="template-error"
            >
              {error}
            </Text>
          )}
        </Stack>
      </form>
    </Paper>
  );
}
