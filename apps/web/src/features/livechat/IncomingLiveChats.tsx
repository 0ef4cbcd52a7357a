import { Button, Group, Paper, Progress, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { LIVECHAT_STRINGS as L, type QueuedChat, queueFor } from '@parley/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { liveChatKeys } from '../../lib/queryKeys';
import { useSession } from '../../lib/session';
import { acceptLiveChat, useLiveChatBadge, useLiveChatQueue } from './api';

/** Accepts a chat (an id, or Take one with null) and opens it; a refusal is shown as a notice. */
function useAccept() {
  const navigate = useNavigate();
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  const accept = async (id: number | null) => {
    setBusy(true);
    const r = await acceptLiveChat(id);
    setBusy(false);
    if (!r.ok) return notifications.show({ color: 'red', message: r.error });
    void qc.invalidateQueries({ queryKey: liveChatKeys.list });
    navigate(`/livechat/${r.ticket_id}`);
  };
  return { busy, accept };
}

/**
 * LIVECHAT-03, LIVECHAT-21: the incoming live chats banner with Take one, and the offer prompt of automatic
 * offering. Mounted by the shell's banner area for every signed-in user (it also keeps the Live Chats tab's
 * badge, LIVECHAT-17). Design: the banner counts the chats offered to nobody, the ones Take one may take;
 * a chat offered to this user shows as the prompt instead, and chats offered to others show nowhere.
 */
export function IncomingLiveChats() {
  const { state } = useSession();
  const me = state.phase === 'signedIn' ? state.session : undefined;
  const queue = useLiveChatQueue(me?.userId ?? 0, me?.adminUsername ?? '');
  const { busy, accept } = useAccept();
  useLiveChatBadge(queue.data?.count ?? 0);
  const { open, offer } = queueFor(queue.data ?? { count: 0, queue: [] }, me?.userId ?? 0);
  return (
    <>
      {offer && <OfferPrompt key={offer.id} offer={offer} busy={busy} accept={() => void accept(offer.id)} />}
      {open > 0 && (
        <Paper withBorder p="xs" data-testid="banner-livechat" role="status">
          <Group justify="space-between">
            <Text size="sm">{L.incoming(open)}</Text>
            <Button size="xs" loading={busy} onClick={() => void accept(null)}>
              {L.takeOne}
            </Button>
          </Group>
        </Paper>
      )}
    </>
  );
}

/** Whole seconds until `at` (server time), never below 0; ticks every second. */
const secondsUntil = (at: number) => Math.max(0, Math.ceil((at - Date.now()) / 1000));
function useSecondsLeft(at: number) {
  const [s, setS] = useState(() => secondsUntil(at));
  useEffect(() => {
    setS(secondsUntil(at));
    const t = window.setInterval(() => setS(secondsUntil(at)), 1000);
    return () => window.clearInterval(t);
  }, [at]);
  return s;
}

/**
 * The chat offered to this agent: who, the start of the message, the time left, Accept. It goes when the
 * offer moves on or the chat is taken (the queue says so), or when its time is up.
 */
function OfferPrompt({ offer, busy, accept }: { offer: QueuedChat; busy: boolean; accept: () => void }) {
  const expires = offer.offer_expires_at ?? 0;
  const left = useSecondsLeft(expires);
  const total = useRef(Math.max(1, secondsUntil(expires)));
  if (left <= 0) return null;
  return (
    <Paper
      withBorder
      shadow="sm"
      p="sm"
      role="alert"
      aria-label={L.offerTitle(offer.name)}
      data-testid="livechat-offer"
      data-livechat-id={offer.id}
      style={{ borderLeft: '4px solid var(--mantine-primary-color-filled)' }}
    >
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="md">
        <Stack gap={2} style={{ minWidth: 0, flex: 1 }}>
          <Text fw={600} size="sm">
            {L.offerTitle(offer.name)}
          </Text>
          <Text size="sm" c="dimmed" lineClamp={2} data-testid="livechat-offer-message">
            {offer.message}
          </Text>
          <Text size="xs" c="dimmed" data-testid="livechat-offer-left">
            {L.offerLeft(left)}
          </Text>
        </Stack>
        <Button size="sm" loading={busy} onClick={accept}>
          {L.accept}
        </Button>
      </Group>
      <Progress
        mt="xs"
        size="xs"
        value={(left / total.current) * 100}
        aria-label={L.offerLeft(left)}
        transitionDuration={900}
      />
    </Paper>
  );
}
