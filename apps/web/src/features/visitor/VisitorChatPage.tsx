import { Box, Button, Group, Paper, Stack, Text, TextInput } from '@mantine/core';
import { type LiveChatInfoAnswer, VISITOR_STRINGS as S, type VisitorMessage } from '@parley/contracts';
import { useEffect, useRef, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { api } from '../../lib/http';
import { mergeMessages, openVisitorSocket, queueId, storedCsrf, type VisitorSocket } from '../../lib/visitorSocket';
import { Disconnected, Frame } from './VisitorPage';

/**
 * VISITOR-04, VISITOR-10 (design): the running chat. Plain text both ways. Messages typed while the
 * network is away wait (shown as sending) and go out, once each, when it is back; after every reconnect
 * the history is read again, so nothing sent to the visitor in between is lost.
 */
export function VisitorChatPage() {
  const { token = '' } = useParams();
  const navigate = useNavigate();
  const [messages, setMessages] = useState<VisitorMessage[]>([]);
  const [text, setText] = useState('');
  const [down, setDown] = useState(false);
  const [ready, setReady] = useState(false);
  const [name, setName] = useState('');
  const socket = useRef<VisitorSocket | null>(null);
  const pending = useRef<VisitorMessage[]>([]);
  const end = useRef<HTMLDivElement>(null);

  useEffect(() => {
    let s: VisitorSocket | null = null;
    const csrf = storedCsrf.get(token);
    api<LiveChatInfoAnswer>('POST', '/api/livechat/info', { token, csrf })
      .then((r) => {
        setName(r.name);
        if (r.result !== 'success' || !r.ticket_id) return navigate(`/register/livechat/${token}`, { replace: true });
        s = openVisitorSocket(token, r.csrf);
        socket.current = s;
        const flush = () => {
          for (const m of pending.current) {
            s?.emit('visitorMessage', { message: m.message, clientId: m.clientId ?? undefined }, (a) => {
              if (!a.ok) return;
              pending.current = pending.current.filter((p) => p.clientId !== m.clientId);
              setMessages((l) => mergeMessages(l, [a.data]));
            });
          }
        };
        s.on('connect', () => {
          setDown(false);
          s?.emit('visitorHistory', (h) => {
            if (!h.ok) return;
            setMessages((l) => mergeMessages(l, h.data));
            setReady(true);
            if (h.state === 'ended' || h.state === 'converted')
              return navigate(`/register/livechat/${token}`, { replace: true });
            flush();
          });
        });
        s.on('disconnect', () => setDown(true));
        s.on('connect_error', () => setDown(true));
        s.on('newMessage', (e) => setMessages((l) => mergeMessages(l, [e.data.message])));
        s.on('liveChatEnded', () => navigate(`/register/livechat/${token}`, { replace: true }));
      })
      .catch(() => navigate(`/register/livechat/${token}`, { replace: true }));
    return () => {
      s?.close();
    };
  }, [token, navigate]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll down when a message arrives
  useEffect(() => {
    // A block body: newer Chromium returns a Promise from scrollIntoView, and an effect must not return one.
    void end.current?.scrollIntoView?.({ block: 'end' });
  }, [messages.length]);

  function send() {
    const message = text.trim();
    if (!message) return;
    const m: VisitorMessage = {
      id: -Date.now(),
      ticketId: 0,
      sender: 'visitor',
      senderName: '',
      type: 'text',
      message,
      ts: Date.now(),
      clientId: queueId(),
    };
    pending.current.push(m);
    setMessages((l) => mergeMessages(l, [m]));
    setText('');
    const s = socket.current;
    if (s?.connected)
      s.emit('visitorMessage', { message, clientId: m.clientId ?? undefined }, (a) => {
        if (!a.ok) return;
        pending.current = pending.current.filter((p) => p.clientId !== m.clientId);
        setMessages((l) => mergeMessages(l, [a.data]));
      });
  }

  if (!ready && !down)
    return (
      <Frame>
        <Text>{S.pleaseWait}</Text>
      </Frame>
    );
  return (
    <Stack h="100dvh" gap={0} p="sm">
      {name && (
        <Text fw={600} pb="xs">
          {name}
        </Text>
      )}
      {down && <Disconnected />}
      <Box style={{ flex: 1, overflowY: 'auto', minHeight: 0 }} data-testid="visitor-messages">
        <Stack gap="xs" py="xs">
          {messages.map((m) => (
            <Group
              key={m.id > 0 ? m.id : m.clientId}
              data-testid="visitor-message"
              justify={m.sender === 'visitor' ? 'flex-end' : 'flex-start'}
            >
              <Paper
                p="xs"
                px="sm"
                radius="md"
                withBorder
                bg={m.sender === 'visitor' ? 'var(--mantine-primary-color-light)' : undefined}
                maw="80%"
                opacity={m.id > 0 ? 1 : 0.6}
              >
                {m.sender !== 'visitor' && (
                  <Text size="xs" c="dimmed">
                    {m.senderName}
                  </Text>
                )}
                <Text
                  size="sm"
                  style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}
                  data-sent={m.id > 0 ? 'yes' : 'no'}
                >
                  {m.message}
                </Text>
              </Paper>
            </Group>
          ))}
          <Box ref={end} />
        </Stack>
      </Box>
      <Group gap="xs" wrap="nowrap">
        <TextInput
          style={{ flex: 1 }}
          aria-label={S.typeMessage}
          placeholder={S.typeMessage}
          value={text}
          maxLength={4000}
          onChange={(e) => setText(e.currentTarget.value)}
          onKeyDown={(e) => e.key === 'Enter' && send()}
        />
        <Button onClick={send}>{S.send}</Button>
      </Group>
    </Stack>
  );
}
