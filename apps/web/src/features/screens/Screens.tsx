import { Anchor, Button, Card, Center, Container, List, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { CHAT_NOT_ALLOWED, SHELL_STRINGS } from '@parley/contracts';
import {
  IconAddressBook,
  IconBook,
  IconBrain,
  IconBriefcase,
  IconCalendar,
  IconChartBar,
  IconClock,
  IconCreditCard,
  IconEye,
  IconFileText,
  IconHeadset,
  IconLayoutKanban,
  IconLink,
  IconMessages,
  IconMicrophone,
  IconPackage,
  IconPhone,
  IconShieldExclamation,
  IconSpeakerphone,
  IconTicket,
  IconUserSearch,
} from '@tabler/icons-react';
import { Link, useParams } from 'react-router';
import { EmptyScreen } from '../../ui/EmptyScreen';
import { useSetupState } from '../auth/useSession';

/*
 * The screens other capabilities fill. Until then each shows a real empty state saying what will be here,
 * never a blank page (issue 4). They load on demand as one small chunk.
 */

export const TicketsScreen = () => (
  <EmptyScreen
    icon={IconTicket}
    title="No tickets yet"
    text="Tickets from e-mail, forms and social channels land here."
  />
);
export const LiveChatScreen = () => (
  <EmptyScreen
    icon={IconHeadset}
    title="No live chats"
    text="Chats from your website visitors show here as they start."
  />
);
export const ChatScreen = () => (
  <EmptyScreen icon={IconMessages} title={SHELL_STRINGS.emptyChat} text={SHELL_STRINGS.emptyChatBody} />
);
export const ReportScreen = () => (
  <EmptyScreen
    icon={IconChartBar}
    title="Reports"
    text="Pick a report once your team has handled some conversations."
  />
);
export const CallScreen = () => (
  <EmptyScreen
    icon={IconPhone}
    title="No calls yet"
    text="Calls you make and take with the softphone are listed here, 30 per page."
  />
);
export const ContactsScreen = () => (
  <EmptyScreen
    icon={IconAddressBook}
    title="No contacts yet"
    text="People who write or call you become contacts automatically."
  />
);
export const CaseScreen = () => (
  <EmptyScreen
    icon={IconBriefcase}
    title="No cases"
    text="Cases group tickets, chats and calls about one customer problem."
  />
);
export const CustomerAnalysisScreen = () => (
  <EmptyScreen
    icon={IconUserSearch}
    title="Customer analysis"
    text="Insights about your customers appear once conversations come in."
  />
);
export const CalendarScreen = () => (
  <EmptyScreen icon={IconCalendar} title="No events" text="Events and holidays of your team show on this calendar." />
);
export const KanbanScreen = () => (
  <EmptyScreen icon={IconLayoutKanban} title="Kanban" text="Cards for follow-ups move across this board." />
);
export const SupervisoryScreen = () => (
  <EmptyScreen icon={IconEye} title="Supervisory" text="Live view of your agents and queues." />
);
export const ScamCallsScreen = () => (
  <EmptyScreen
    icon={IconShieldExclamation}
    title="Scam Calls"
    text="Calls flagged as possible scams are listed here for review."
  />
);
export const TradingScreen = () => (
  <EmptyScreen
    icon={IconBrain}
    title="Trading insight"
    text="Signals and predictions for your trading desk appear here."
  />
);
export const RecordingScreen = () => (
  <EmptyScreen icon={IconMicrophone} title="Recordings" text="Recorded calls appear here with their transcripts." />
);
export const FormsScreen = () => (
  <EmptyScreen icon={IconFileText} title="Forms" text="Entries submitted through your contact forms are listed here." />
);
export const CampaignScreen = () => (
  <EmptyScreen
    icon={IconSpeakerphone}
    title="No campaigns"
    text="Campaigns group outgoing messages and the tickets they bring back."
  />
);
export const ProductScreen = () => (
  <EmptyScreen icon={IconPackage} title="No products" text="Products your customers ask about, for quick answers." />
);
export const TimerScreen = () => (
  <EmptyScreen icon={IconClock} title="Timer" text="Time tracked on tickets and chats shows here." />
);
export const PlanScreen = () => (
  <EmptyScreen icon={IconCreditCard} title="Your plan" text="Plans, subscription and invoices of this workspace." />
);
export const NoConversationsScreen = () => (
  <EmptyScreen
    icon={IconMessages}
    title="No conversations in this account"
    text="This is a console account: it has reports and settings, but no tickets or chats."
  />
);
/** HOST-07: the chat view on a host that is not one of the product's own. */
export const ChatNotAllowedScreen = () => (
  <EmptyScreen icon={IconMessages} title={CHAT_NOT_ALLOWED.title} text={CHAT_NOT_ALLOWED.body} />
);
export const GenericScreen = () => (
  <EmptyScreen icon={IconLink} title="Nothing here yet" text="This part of the workspace has no content yet." />
);
export const KnowledgeScreen = () => {
  const { type = 'kb', lang = 'en' } = useParams();
  return (
    <EmptyScreen
      icon={IconBook}
      title={type === 'manual' ? 'Support' : 'Knowledgebase'}
      text={`No articles in this ${type === 'manual' ? 'manual' : 'knowledge base'} yet (${lang}).`}
    />
  );
};

/** SHELL-03, SHELL-04 */
export function AboutPage() {
  return (
    <Container size="sm" py="xl">
      <Stack>
        <Title order={1}>About Parley</Title>
        <Text>
          Parley is an open-source workspace for customer support and contact centres: tickets from e-mail and social
          channels, live chat with your website visitors, team chat, calls, reports and AI hints, in one place.
        </Text>
        <Text>
          It is made by the Parley engineers and its contributors, and published under an open-source licence so any
          team can run it on its own servers.
        </Text>
        <Text c="dimmed" size="sm">
          Version {__APP_VERSION__}
        </Text>
        <Anchor component={Link} to="/">
          Back to Parley
        </Anchor>
      </Stack>
    </Container>
  );
}

/** SHELL-02: the public pricing page. */
export function PricingPage() {
  // SIGNUP_ENABLED=false: no button to a sign-up the server refuses.
  const signupOn = useSetupState().data?.signup !== false;
  const plans = [
    ['Starter', 'Tickets, live chat and the Workspace for a small team.'],
    ['Basic', 'Adds social channels, labels and reports.'],
    ['Pro', 'Adds calls, SLA alerts and customer analysis.'],
    ['Enterprise', 'Everything, with single sign-on and priority support.'],
  ];
  return (
    <Container size="md" py="xl">
      <Stack>
        <Title order={1}>Pricing</Title>
        <Text>Every plan starts with a 14-day free trial. No card needed.</Text>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          {plans.map(([name, text]) => (
            <Card key={name} withBorder>
              <Title order={3}>{name}</Title>
              <Text size="sm" c="dimmed">
                {text}
              </Text>
            </Card>
          ))}
        </SimpleGrid>
        {signupOn && (
          <Button component={Link} to="/signup" w="fit-content">
            Start free trial
          </Button>
        )}
      </Stack>
    </Container>
  );
}

/** SHELL-02: the public contact page. */
export function ContactPage() {
  return (
    <Container size="sm" py="xl">
      <Stack>
        <Title order={1}>Contact</Title>
        <Text>Questions about Parley? Write to us and a person answers within one working day.</Text>
        <List>
          <List.Item>E-mail: hello@parley.example</List.Item>
          <List.Item>Documentation: the Support pages inside the app</List.Item>
        </List>
        <Anchor component={Link} to="/">
          Sign in
        </Anchor>
      </Stack>
    </Container>
  );
}

/** SHELL-05 .. SHELL-08: public token pages; their owners check the token. Until then: an honest answer. */
export function TokenPage({ what }: { what: string }) {
  return (
    <Center mih="100dvh" p="md">
      <Stack align="center" ta="center" maw={420}>
        <Title order={1} size="h3">
          {what}
        </Title>
        <Text c="dimmed">This link is not valid or has expired. Ask the sender for a new one.</Text>
      </Stack>
    </Center>
  );
}
