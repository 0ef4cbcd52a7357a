import { Anchor, Badge, Group, Paper, Text, ThemeIcon } from '@mantine/core';
import { callDuration, channelName, type Interaction, type InteractionKind } from '@parley/contracts';
import {
  IconArrowBackUp,
  IconMessage2,
  IconMessageCircle,
  IconNote,
  IconPhone,
  IconSwitchHorizontal,
} from '@tabler/icons-react';
import type { ComponentType } from 'react';
import { Link } from 'react-router';
import { formatTime } from '../../lib/dates';
import { KIND_LABELS, INTERACTIONS_TEXT as T } from './strings';

type Icon = ComponentType<{ size?: number; stroke?: number }>;

/** The icon and colour of each kind (shades 7+ keep the light-variant icon readable in both themes). */
const LOOK: Record<InteractionKind, { icon: Icon; color: string }> = {
  in: { icon: IconMessage2, color: 'blue' },
  out: { icon: IconArrowBackUp, color: 'teal' },
  note: { icon: IconNote, color: 'yellow' },
  change: { icon: IconSwitchHorizontal, color: 'gray' },
  livechat: { icon: IconMessageCircle, color: 'grape' },
  call: { icon: IconPhone, color: 'indigo' },
};

/** Where an item's conversation opens: a live chat, a call or a ticket; a chat still queued opens the queue. */
export function interactionLink(x: Interaction): string {
  if (x.ticketId === null) return '/livechat';
  if (x.channel === 'LIVECHAT' || x.channel === 'livechat') return `/livechat/${x.ticketId}`;
  if (x.channel === 'CALL') return `/call/${x.ticketId}`;
  return `/ticket/${x.ticketId}`;
}

/** Who did it, in words. */
function who(x: Interaction): string {
  if (x.kind === 'change') return T.system;
  if (x.kind === 'in') return x.name || T.customer;
  if (x.kind === 'livechat') return x.name || T.visitor;
  return x.name || x.username || T.system;
}

/** The one line under the header. */
function excerpt(x: Interaction): string {
  if (x.encrypted) return T.encrypted;
  if (x.kind === 'call') return [T.call(x.state, callDuration(x.duration)), x.text].filter(Boolean).join(' · ');
  if (x.kind === 'livechat') {
    const state = T.liveChatState[x.state] ?? x.state;
    return [x.text, state && `(${state})`].filter(Boolean).join(' ');
  }
  return x.text;
}

/** One interaction of the timeline: kind icon, who, kind, channel, its conversation, an excerpt, the time. */
export function InteractionItem({ x }: { x: Interaction }) {
  const look = LOOK[x.kind];
  const Icon = look.icon;
  return (
    <Paper withBorder p="sm" radius="md" component="li" data-testid="interaction" data-kind={x.kind}>
      <Group gap="sm" wrap="nowrap" align="flex-start">
        <ThemeIcon variant="light" color={look.color} size="lg" radius="xl" aria-hidden>
          <Icon size={18} stroke={1.7} />
        </ThemeIcon>
        <div style={{ minWidth: 0, flex: 1 }}>
          <Group gap={6} wrap="wrap" justify="space-between">
            <Group gap={6} wrap="wrap" style={{ minWidth: 0 }}>
              <Text fw={600} size="sm" data-testid="interaction-who">
                {who(x)}
              </Text>
              <Text size="sm" c="dimmed">
                {KIND_LABELS[x.kind]}
              </Text>
              <Badge variant="light" color="gray" size="sm" radius="sm" tt="none">
                {channelName(x.channel)}
              </Badge>
            </Group>
            <Text size="xs" c="dimmed" component="time" dateTime={new Date(x.at).toISOString()}>
              {formatTime(x.at)}
            </Text>
          </Group>
          <Anchor
            component={Link}
            to={interactionLink(x)}
            size="sm"
            lineClamp={1}
            data-testid="interaction-link"
            style={{ wordBreak: 'break-word' }}
          >
            {x.ticketId === null ? T.liveChatQueue : T.ticket(x.ticketNumber, x.title)}
          </Anchor>
          <Text
            size="sm"
            lineClamp={1}
            fs={x.encrypted ? 'italic' : undefined}
            c={x.encrypted ? 'dimmed' : undefined}
            data-testid="interaction-text"
            style={{ wordBreak: 'break-word' }}
          >
            {excerpt(x)}
          </Text>
        </div>
      </Group>
    </Paper>
  );
}
