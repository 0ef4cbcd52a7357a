import {
  Badge,
  Box,
  Button,
  Drawer,
  Group,
  Modal,
  Paper,
  ScrollArea,
  Stack,
  Text,
  Title,
  Tooltip,
  UnstyledButton,
} from '@mantine/core';
import { useLocalStorage, useMediaQuery } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { LIVECHAT_STRINGS as L, type LiveChatGroup, planEntitlements } from '@parley/contracts';
import { type ComponentType, Suspense, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { api, errorText } from '../../lib/http';
import { useDisplayName } from '../../lib/people';
import { useRealtimeEvent } from '../../lib/realtime';
import { useSession } from '../../lib/session';
import { useFitHeight } from '../../lib/useFitHeight';
import { toast } from '../../ui/toast';
import { useLiveChatList, useReadOpenChat } from './api';
import { MergeSessions } from './MergeSessions';
import { VISITOR_DETAILS_TEXT as V } from './strings';
import { TranscriptActions } from './TranscriptActions';
import { VisitorDetails } from './VisitorDetails';

/** LIVECHAT-03: the banner and the offer prompt (the shell's banner area loads them from here). */
export { IncomingLiveChats } from './IncomingLiveChats';

/** LIVECHAT-02, LIVECHAT-12, LIVECHAT-13, LIVECHAT-18: groups by visitor session, then the open chat. */
export function LiveChatsScreen({
  Pane,
  InfoToggle,
  Notes,
}: {
  /** The conversation pane (the conversation feature's, loaded lazily by the screen that composes this one). */
  Pane: ComponentType<{ ticketId: number }>;
  /** The button that shows or hides the visitor's details (the ticket info panel's). */
  InfoToggle: ComponentType<{ open: boolean; onToggle(): void }>;
  /** The ticket's notes, under the visitor's details (the tickets feature's). */
  Notes: ComponentType<{ ticketId: number }>;
}) {
  const { '*': rest } = useParams();
  const ticketId = Number(rest?.split('/')[0]) || null;
  const list = useLiveChatList();
  const navigate = useNavigate();
  const [open, setOpen] = useState<Record<number, boolean>>({});
  const [ending, setEnding] = useState(false);
  const { state } = useSession();
  // PLAN-21: converting to a ticket comes with Basic and up; below, the button says why instead.
  const entitled = planEntitlements(state.phase === 'signedIn' ? (state.session.plan ?? 0) : 0);
  const mayConvert = entitled.convertToTicket;
  const convert = (id: number) =>
    api('POST', '/api/livechat/convert', { id }).catch((e) =>
      notifications.show({ color: 'red', message: errorText(e) }),
    );
  // The chat fills the screen's height, as the Workspace does (the bottom tabs take 60 px on a phone).
  const narrow = useMediaQuery('(max-width: 48em)');
  // The visitor's details: a column beside the chat from 75em (open until the user closes it, kept like the
  // ticket panel's choice), a drawer below that.
  const wide = useMediaQuery('(min-width: 75em)', true);
  const [chosen, setDetails] = useLocalStorage<'open' | 'closed' | ''>({
    key: 'parley.liveChatInfo',
    defaultValue: '',
  });
  const detailsOpen = (chosen || 'open') === 'open';
  const [drawer, setDrawer] = useState(false);
  const toggleDetails = () => (wide ? setDetails(detailsOpen ? 'closed' : 'open') : setDrawer(!drawer));
  const { box, height } = useFitHeight(narrow ? 60 : 0);
  const groups = list.groups;
  const current = groups.flatMap((g) => g.livechats).find((c) => c.ticket_id === ticketId);
  useReadOpenChat(ticketId);

  // LIVECHAT-11, LIVECHAT-14: removed from the open chat: home, with the notice.
  useRealtimeEvent('removeLiveChat', (d) => {
    if (d.ticket_id !== ticketId) return;
    notifications.show({ color: 'red', message: L.removedNotice });
    navigate('/');
  });

  return (
    <Group
      ref={box}
      align="stretch"
      gap={0}
      wrap="nowrap"
      style={{ height, minHeight: 360 }}
      data-testid="livechat-screen"
    >
      <Stack
        w={narrow ? '100%' : 320}
        p="sm"
        gap="xs"
        display={narrow && ticketId ? 'none' : undefined}
        style={{ borderRight: '1px solid var(--mantine-color-default-border)', flexShrink: 0 }}
      >
        <Title order={1} size="h4">
          {L.title}
        </Title>
        <ScrollArea style={{ flex: 1 }}>
          {groups.length === 0 && !list.isPending && <Text c="dimmed">{L.empty}</Text>}
          <Stack gap="xs">
            {groups.map((g) => (
              <GroupItem
                key={g.session_id}
                g={g}
                open={open[g.session_id] ?? !g.collapsed}
                current={ticketId}
                groups={groups}
                toggle={() => setOpen({ ...open, [g.session_id]: !(open[g.session_id] ?? !g.collapsed) })}
              />
            ))}
          </Stack>
          {list.hasNextPage && (
            <Button variant="subtle" loading={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
              {L.showMore}
            </Button>
          )}
        </ScrollArea>
      </Stack>
      <Box style={{ flex: 1, minWidth: 0 }} display={narrow && !ticketId ? 'none' : undefined}>
        {ticketId ? (
          <>
            <Stack h="100%" gap={0}>
              <Group p="xs" gap="xs" justify="flex-end">
                {current?.state === 'chatting' &&
                  (mayConvert ? (
                    <Button size="xs" variant="light" onClick={() => void convert(ticketId)}>
                      {L.convert}
                    </Button>
                  ) : (
                    <Tooltip
                      label={L.convertNotOnPlan}
                      multiline
                      w={260}
                      events={{ hover: true, focus: true, touch: true }}
                    >
                      <Button
                        size="xs"
                        variant="light"
                        data-disabled
                        aria-disabled
                        aria-description={L.convertNotOnPlan}
                        onClick={(e) => e.preventDefault()}
                        data-testid="livechat-convert-off-plan"
                      >
                        {L.convert}
                      </Button>
                    </Tooltip>
                  ))}
                {current?.state === 'chatting' && (
                  <Button size="xs" color="red" onClick={() => setEnding(true)}>
                    {L.end}
                  </Button>
                )}
                {current && <TranscriptActions ticketId={ticketId} allowed={entitled.chatTranscript} />}
                <InfoToggle open={wide ? detailsOpen : drawer} onToggle={toggleDetails} />
              </Group>
              <Modal opened={ending} onClose={() => setEnding(false)} title={L.end} centered size="sm">
                <Stack>
                  <Text>{L.endConfirm}</Text>
                  <Group justify="flex-end">
                    <Button variant="default" onClick={() => setEnding(false)}>
                      Cancel
                    </Button>
                    <Button
                      color="red.9"
                      data-testid="confirm-end-chat"
                      onClick={() => {
                        setEnding(false);
                        api('POST', '/api/livechat/end', { id: ticketId }).catch((e: Error) =>
                          toast({ message: e.message, color: 'red' }),
                        );
                      }}
                    >
                      {L.end}
                    </Button>
                  </Group>
                </Stack>
              </Modal>
              {current && current.state !== 'chatting' && (
                <Badge m="xs">{current.state === 'converted' ? L.converted : L.ended}</Badge>
              )}
              <Box style={{ flex: 1, minHeight: 0 }} px="md">
                <Suspense fallback={null}>
                  <Pane ticketId={ticketId} />
                </Suspense>
              </Box>
            </Stack>
            {!wide && (
              <Drawer
                opened={drawer}
                onClose={() => setDrawer(false)}
                position="right"
                size={320}
                title={V.title}
                closeButtonProps={{ 'aria-label': V.close }}
              >
                <VisitorDetails ticketId={ticketId} heading={false} Notes={Notes} />
              </Drawer>
            )}
          </>
        ) : (
          <Stack align="center" justify="center" h="100%">
            <Text c="dimmed">{L.selectChat}</Text>
          </Stack>
        )}
      </Box>
      {ticketId && wide && detailsOpen && (
        <Box
          p="sm"
          style={{ flex: '0 0 300px', overflowY: 'auto', borderLeft: '1px solid var(--mantine-color-default-border)' }}
        >
          <VisitorDetails key={ticketId} ticketId={ticketId} Notes={Notes} />
        </Box>
      )}
    </Group>
  );
}

function GroupItem({
  g,
  open,
  toggle,
  current,
  groups,
}: {
  g: LiveChatGroup;
  open: boolean;
  toggle: () => void;
  current: number | null;
  groups: LiveChatGroup[];
}) {
  const displayName = useDisplayName();
  const navigate = useNavigate();
  return (
    <Paper withBorder p="xs" data-testid="livechat-group">
      <Group gap={4} wrap="nowrap">
        <UnstyledButton onClick={toggle} style={{ flex: 1, minWidth: 0 }} aria-expanded={open}>
          <Group justify="space-between" wrap="nowrap">
            <Text fw={600} size="sm" truncate>
              {g.session_name}
            </Text>
            <Group gap={4} wrap="nowrap">
              {g.sessions.length > 1 && (
                <Text size="xs" c="dimmed" data-testid="livechat-sessions">
                  {L.sessions(g.sessions.length)}
                </Text>
              )}
              <Badge size="sm" variant="light">
                {g.livechats.length}
              </Badge>
            </Group>
          </Group>
        </UnstyledButton>
        <MergeSessions group={g} groups={groups} />
      </Group>
      {open &&
        g.livechats.map((c) => (
          <UnstyledButton
            key={c.id}
            w="100%"
            p={4}
            onClick={() => navigate(`/livechat/${c.ticket_id}`)}
            bg={c.ticket_id === current ? 'var(--mantine-primary-color-light)' : undefined}
            data-testid={`livechat-${c.ticket_id}`}
          >
            <Group justify="space-between" wrap="nowrap">
              <Text size="sm" truncate>
                #{c.ticket_number} {c.title}
              </Text>
              <Text size="xs" c="dimmed">
                {c.state === 'chatting' ? displayName(c.agent) : c.state === 'converted' ? L.converted : L.ended}
              </Text>
            </Group>
          </UnstyledButton>
        ))}
    </Paper>
  );
}
