import { Box, Button, Drawer, Group, Stack, Text, Title } from '@mantine/core';
import { useLocalStorage, useMediaQuery } from '@mantine/hooks';
import { channelName, PLANS } from '@parley/contracts';
import { IconExternalLink } from '@tabler/icons-react';
import { useState } from 'react';
import { Navigate, useLocation, useParams } from 'react-router';
import { EmotionBadge, READING_STRINGS } from '../../features/conversation/Reading';
import { TicketProductsPicker } from '../../features/products/TicketProductsPicker';
import { MacroMenu } from '../../features/replies/MacroMenu';
import { TicketSlaStatus } from '../../features/sla/TicketSlaStatus';
import { T } from '../../features/tickets/strings';
import { TicketInfoPanel, TicketInfoToggle } from '../../features/tickets/TicketInfoPanel';
import { TicketTime } from '../../features/timer/TicketTime';
import { useTicketInfo } from '../../lib/api/ticketInfo';
import { useSession } from '../../lib/session';
import { useFitHeight } from '../../lib/useFitHeight';
import { EmptyScreen } from '../../ui/EmptyScreen';
import { Conversation } from '../conversations/Conversation';
import { TicketListScreen } from './TicketListScreen';

/** The ticket above its conversation: number, title, channel and customer, and the info panel's toggle. */
function TicketHeader({ ticketId, infoOpen, onToggle }: { ticketId: number; infoOpen: boolean; onToggle(): void }) {
  const t = useTicketInfo(ticketId).data;
  return (
    <Group justify="space-between" wrap="nowrap" gap="sm" mb="xs" data-testid="ticket-header">
      <Stack gap={0} style={{ minWidth: 0 }}>
        <Title order={2} size="h4" lineClamp={1}>
          {t ? `#${t.ticket_number} ${t.title}` : ''}
        </Title>
        <Group gap={6} wrap="nowrap">
          <Text size="sm" c="dimmed" truncate>
            {t ? [channelName(t.channel), t.name || t.email || t.phone].filter(Boolean).join(' · ') : ''}
          </Text>
          {t && <EmotionBadge counts={t.emotion_2} label={READING_STRINGS.ticketEmotion} testId="ticket-emotion" />}
        </Group>
      </Stack>
      <Group gap="xs" wrap="nowrap">
        <MacroMenu ticketIds={[ticketId]} compact />
        <TicketInfoToggle open={infoOpen} onToggle={onToggle} />
      </Group>
    </Group>
  );
}

/**
 * `/ticket/<id>`: the list on the left, the conversation with its header in the middle, and the info panel
 * (SHELL-31) on the right. The panel's open state, once chosen, is kept on this browser (before that it is open
 * from 88em, where all three fit); on screens narrower than 75em it opens as a drawer instead. The list
 * shows from 88em beside an open panel, from 75em otherwise.
 */
export function TicketConversationScreen() {
  const { id } = useParams();
  const location = useLocation();
  const { state } = useSession();
  const wide = useMediaQuery('(min-width: 75em)', true);
  const roomy = useMediaQuery('(min-width: 88em)', true);
  // Until the user chooses, the panel starts open only where the list, the conversation and it all fit.
  const [chosen, setPanel] = useLocalStorage<'open' | 'closed' | ''>({ key: 'parley.ticketInfo', defaultValue: '' });
  const panel = chosen || (roomy ? 'open' : 'closed');
  const [drawer, setDrawer] = useState(false);
  // Below Mantine's sm breakpoint the bottom tabs take 60 px of the window.
  const phone = useMediaQuery('(max-width: 48em)') ?? false;
  const { box, height } = useFitHeight(phone ? 60 : 0);
  // PLAN-09, SHELL-30: a console account (plan 99) has no conversation view.
  if (state.phase === 'signedIn' && state.session.plan === PLANS.console) return <Navigate to="/" replace />;
  const ticketId = Number(id);
  // SHELL-28, HOST-08: the call-branded host shows chats and calls; a ticket opens in the full product.
  const details = state.phase === 'signedIn' ? state.session.productDetails : undefined;
  if (details?.variant === 'support') {
    const url = details.product_url ? `${details.product_url}${location.pathname}` : '';
    return (
      <EmptyScreen title={T.elsewhere.title} text={T.elsewhere.text} icon={IconExternalLink}>
        {url && (
          <Button component="a" href={url} rightSection={<IconExternalLink size={16} />} data-testid="open-elsewhere">
            {T.elsewhere.open}
          </Button>
        )}
      </EmptyScreen>
    );
  }
  const side = wide && panel === 'open';
  const toggle = () => (wide ? setPanel(panel === 'open' ? 'closed' : 'open') : setDrawer(!drawer));
  return (
    <Group align="flex-start" gap="md" wrap="nowrap" w="100%">
      <Box style={{ flex: '1 1 420px', minWidth: 0 }} visibleFrom={side ? 'xl' : 'lg'}>
        <TicketListScreen />
      </Box>
      {/* The conversation fills the window's height below the banners, so its composer sits at the foot
          of the screen (above the bottom tabs on a phone), as in a live chat. */}
      <Box
        ref={box}
        style={{ flex: '1 1 480px', minWidth: 0, height, minHeight: 360, display: 'flex', flexDirection: 'column' }}
        data-testid="ticket-conversation"
      >
        <TicketHeader ticketId={ticketId} infoOpen={wide ? side : drawer} onToggle={toggle} />
        <Box style={{ flex: 1, minHeight: 0 }}>
          <Conversation key={ticketId} ticketId={ticketId} />
        </Box>
      </Box>
      {side && (
        <Box style={{ flex: '0 0 300px', maxHeight: 'calc(100dvh - 100px)', overflowY: 'auto' }}>
          <TicketInfoPanel
            SlaStatus={TicketSlaStatus}
            Products={TicketProductsPicker}
            TimeTracking={TicketTime}
            ticketId={ticketId}
            onClose={() => setPanel('closed')}
          />
        </Box>
      )}
      {!wide && (
        <Drawer
          opened={drawer}
          onClose={() => setDrawer(false)}
          position="right"
          size={320}
          title={T.info.title}
          closeButtonProps={{ 'aria-label': T.info.close }}
        >
          <TicketInfoPanel
            SlaStatus={TicketSlaStatus}
            Products={TicketProductsPicker}
            TimeTracking={TicketTime}
            ticketId={ticketId}
            heading={false}
          />
        </Drawer>
      )}
    </Group>
  );
}
