import {
  Alert,
  Anchor,
  Avatar,
  Badge,
  Button,
  Group,
  Loader,
  Modal,
  Progress,
  Stack,
  Tabs,
  Text,
  UnstyledButton,
} from '@mantine/core';
import {
  type ActivityItem,
  CHANNELS,
  expForLevel,
  isLiveChatChannel,
  PROFILE_ACTIVITY_PAGE,
  PROFILE_LIST_PAGE,
  type ProfileData,
  type ProfileListItem,
  profileKind,
  PROFILE_STRINGS as S,
} from '@parley/contracts';
import { IconRobot, IconWorld } from '@tabler/icons-react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { listDate } from '../../lib/dates';
import { profileKeys } from '../../lib/queryKeys';
import { profileApi } from './api';

/** Who to show: a message sender (a username, a bot name or `visitor`) and the ticket it wrote in. */
export interface ProfileTarget {
  sender: string;
  /** The ticket of the message: a `visitor` sender is that ticket's contact (or the live chat visitor). */
  ticketId?: number;
  /** A shown name while the profile loads. */
  name?: string;
}

const channelName = (c: string) => (CHANNELS as Record<string, string>)[c] ?? c;
/** The profile's lists read as every list does: today the time, "Yesterday", else D/M/YYYY. */
const date = (unixSeconds: number) => listDate(unixSeconds * 1000);

/** Previous / Next over an open-ended list: more may exist while a page comes back full. */
function Paging({ offset, size, got, onChange, label }: PagingProps) {
  if (offset === 0 && got < size) return null;
  return (
    <Group gap="xs" justify="flex-end" aria-label={label}>
      <Button size="compact-xs" variant="default" disabled={offset === 0} onClick={() => onChange(offset - size)}>
        Previous
      </Button>
      <Text size="xs" c="dimmed">
        {offset / size + 1}
      </Text>
      <Button size="compact-xs" variant="default" disabled={got < size} onClick={() => onChange(offset + size)}>
        Next
      </Button>
    </Group>
  );
}
interface PagingProps {
  offset: number;
  size: number;
  got: number;
  label: string;
  onChange(offset: number): void;
}

/** PROFILE-01, PROFILE-07: the activity list, 5 a page. */
function Activity({ items, onOpen }: { items: ActivityItem[]; onOpen(ticketId: number): void }) {
  if (items.length === 0)
    return (
      <Text size="sm" c="dimmed">
        {S.none}
      </Text>
    );
  return (
    <Stack gap={4} data-testid="profile-activity">
      {items.map((a) => (
        <UnstyledButton key={a.id} onClick={() => onOpen(a.ticket_id)} data-testid="profile-activity-item">
          <Group gap="xs" wrap="nowrap" align="flex-start">
            <Badge variant="light" size="sm" style={{ flexShrink: 0 }}>
              #{a.ticket_number}
            </Badge>
            <div style={{ minWidth: 0, flex: 1 }}>
              <Text size="sm" lineClamp={1}>
                {a.text || a.type}
              </Text>
              <Text size="xs" c="dimmed" lineClamp={1}>
                {a.title} · {channelName(a.channel)} · {date(a.ts)}
              </Text>
            </div>
          </Group>
        </UnstyledButton>
      ))}
    </Stack>
  );
}

/** PROFILE-07, PROFILE-08: a tickets or live chats list, 10 a page. */
function TicketList({ items, onOpen }: { items: ProfileListItem[]; onOpen(id: number): void }) {
  if (items.length === 0)
    return (
      <Text size="sm" c="dimmed">
        {S.none}
      </Text>
    );
  return (
    <Stack gap={2}>
      {items.map((t) => (
        <UnstyledButton key={t.id} onClick={() => onOpen(t.id)} data-testid="profile-ticket">
          <Group gap="xs" wrap="nowrap" py={2}>
            <Text size="sm" c="dimmed" w={56} style={{ flexShrink: 0 }}>
              #{t.ticket_number}
            </Text>
            <Text size="sm" fw={t.read ? 400 : 600} lineClamp={1} style={{ flex: 1 }}>
              {t.title}
            </Text>
            <Text size="xs" c="dimmed" style={{ flexShrink: 0 }}>
              {channelName(t.channel)} · {date(t.ts)}
            </Text>
          </Group>
        </UnstyledButton>
      ))}
    </Stack>
  );
}

function Lists({ username, onOpen }: { username: string; onOpen(id: number): void }) {
  const [tab, setTab] = useState<'ticket' | 'livechat'>('ticket');
  const [offsets, setOffsets] = useState({ ticket: 0, livechat: 0 });
  const offset = offsets[tab];
  const list = useQuery({
    queryKey: profileKeys.list(tab, username, offset),
    queryFn: () => profileApi.list(tab, username, offset),
    placeholderData: keepPreviousData,
  });
  const exp = list.data?.exp ?? 0;
  const level = list.data?.expLevel ?? 1;
  const from = expForLevel(level);
  const to = expForLevel(level + 1);
  return (
    <Stack gap="sm">
      {list.data && (
        <Stack gap={4} data-testid="profile-exp">
          <Group justify="space-between">
            <Text size="sm" fw={600}>
              {S.level} {level}
            </Text>
            <Text size="sm" c="dimmed">
              {S.exp} {exp}
            </Text>
          </Group>
          <Progress value={((exp - from) / (to - from)) * 100} size="sm" aria-label={`${S.exp} ${exp}`} />
        </Stack>
      )}
      <Tabs value={tab} onChange={(v) => setTab(v === 'livechat' ? 'livechat' : 'ticket')}>
        <Tabs.List>
          <Tabs.Tab value="ticket">{S.tickets}</Tabs.Tab>
          <Tabs.Tab value="livechat">{S.liveChats}</Tabs.Tab>
        </Tabs.List>
      </Tabs>
      {list.isError ? (
        <Text size="sm" c="red">
          {(list.error as Error).message}
        </Text>
      ) : list.data ? (
        <div data-testid={`profile-${tab}s`}>
          <TicketList items={list.data.data} onOpen={onOpen} />
        </div>
      ) : (
        <Loader size="sm" />
      )}
      <Paging
        offset={offset}
        size={PROFILE_LIST_PAGE}
        got={list.data?.data.length ?? 0}
        label={tab === 'ticket' ? S.tickets : S.liveChats}
        onChange={(o) => setOffsets((x) => ({ ...x, [tab]: o }))}
      />
    </Stack>
  );
}

function Header({ data }: { data: ProfileData }) {
  return (
    <Group wrap="nowrap" data-testid="profile-header">
      <Avatar
        src={data.photo || undefined}
        alt={data.photo ? data.name || data.uid : undefined}
        name={data.name || data.uid}
        color="indigo"
        variant="filled"
        size="lg"
        radius="xl"
        data-testid="profile-avatar"
      />
      <div style={{ minWidth: 0 }}>
        <Group gap="xs">
          <Text fw={600} data-testid="profile-name">
            {data.name || data.uid}
          </Text>
          <Badge size="sm" variant="light" color={data.kind === 'user' ? 'indigo' : 'teal'}>
            {data.kind === 'user' ? data.type : data.channel ? channelName(data.channel) : data.type}
          </Badge>
        </Group>
        <Text size="sm" c="dimmed" data-testid="profile-uid" style={{ wordBreak: 'break-all' }}>
          {S.uid} {data.uid}
        </Text>
        {(data.email || data.phone) && (
          <Text size="xs" c="dimmed">
            {[data.email, data.phone].filter(Boolean).join(' · ')}
          </Text>
        )}
        {data.contact_id != null && (
          <Anchor component={Link} to={`/contacts/${data.contact_id}`} size="sm" data-testid="profile-contact">
            Contact page
          </Anchor>
        )}
      </div>
    </Group>
  );
}

function Fixed({ text, bot }: { text: string; bot: boolean }) {
  return (
    <Group wrap="nowrap" data-testid="profile-fixed">
      <Avatar color={bot ? 'grape' : 'teal'} variant="light" size="lg" radius="xl">
        {bot ? <IconRobot size={26} /> : <IconWorld size={26} />}
      </Avatar>
      <Text size="sm">{text}</Text>
    </Group>
  );
}

function Body({ target, onOpen }: { target: ProfileTarget; onOpen(ticketId: number): void }) {
  const kind = profileKind(target.sender);
  const [offset, setOffset] = useState(0);
  const byTicket = kind === 'visitor' && target.ticketId !== undefined;
  const q = useQuery({
    queryKey: byTicket ? profileKeys.contact(target.ticketId!, offset) : profileKeys.person(target.sender, offset),
    queryFn: () => (byTicket ? profileApi.contact(target.ticketId!, offset) : profileApi.person(target.sender, offset)),
    enabled: kind === 'lookup' || byTicket,
    placeholderData: keepPreviousData,
    retry: false,
  });
  // PROFILE-04 .. PROFILE-06: no lookup for bots; the live chat visitor reads its fixed text.
  if (kind === 'bot') return <Fixed text={S.bot} bot />;
  if (kind === 'visitor' && !byTicket) return <Fixed text={S.visitor} bot={false} />;
  if (q.isError)
    return (
      <Alert color="red" variant="light">
        {(q.error as Error).message}
      </Alert>
    );
  if (!q.data) return <Loader size="sm" />;
  const data = q.data.data;
  if (kind === 'visitor' && isLiveChatChannel(data.channel)) return <Fixed text={S.visitor} bot={false} />;
  return (
    <Stack gap="md">
      <Header data={data} />
      <ActivityAndLists
        activity={q.data.activity}
        username={data.uid}
        offset={offset}
        onOffset={setOffset}
        onOpen={onOpen}
      />
    </Stack>
  );
}

/** A person's activity, a page at a time, then their tickets and live chats. */
function ActivityAndLists(p: {
  activity: Parameters<typeof Activity>[0]['items'];
  username: string;
  offset: number;
  onOffset(offset: number): void;
  onOpen(id: number): void;
}) {
  return (
    <>
      <Stack gap={6}>
        <Text size="sm" fw={600}>
          {S.activity}
        </Text>
        <Activity items={p.activity} onOpen={p.onOpen} />
        <Paging
          offset={p.offset}
          size={PROFILE_ACTIVITY_PAGE}
          got={p.activity.length}
          label={S.activity}
          onChange={p.onOffset}
        />
      </Stack>
      <Lists username={p.username} onOpen={p.onOpen} />
    </>
  );
}

/**
 * PROFILE-01 .. PROFILE-03 for a colleague's card elsewhere (the online users list's profile): activity,
 * tickets and live chats, level and exp of a user, without the header the card already shows.
 */
export function UserProfileSections({ username, onLeave }: { username: string; onLeave(): void }) {
  const navigate = useNavigate();
  const [offset, setOffset] = useState(0);
  const q = useQuery({
    queryKey: profileKeys.person(username, offset),
    queryFn: () => profileApi.person(username, offset),
    placeholderData: keepPreviousData,
    retry: false,
  });
  const open = (id: number) => {
    onLeave();
    navigate(`/ticket/${id}`);
  };
  if (q.isError) return null;
  if (!q.data) return <Loader size="sm" />;
  return (
    <Stack gap="md" data-testid="profile-sections">
      <ActivityAndLists
        activity={q.data.activity}
        username={q.data.data.uid}
        offset={offset}
        onOffset={setOffset}
        onOpen={open}
      />
    </Stack>
  );
}

/** PROFILE-01 .. PROFILE-09: the profile modal of a user, a contact, a bot or the visitor. */
export function ProfileModal({ target, onClose }: { target: ProfileTarget | null; onClose(): void }) {
  const navigate = useNavigate();
  return (
    <Modal
      opened={target !== null}
      onClose={onClose}
      title={S.title}
      centered
      size="lg"
      data-testid="profile-modal"
      aria-label={S.title}
    >
      {target && (
        <div data-testid="profile-body">
          <Body
            key={`${target.sender}:${target.ticketId ?? ''}`}
            target={target}
            onOpen={(id) => {
              onClose();
              navigate(`/ticket/${id}`);
            }}
          />
        </div>
      )}
    </Modal>
  );
}
