import { Anchor, Button, Card, Center, Container, List, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { CHAT_NOT_ALLOWED } from '@parley/contracts';
import { IconBrain, IconMessages } from '@tabler/icons-react';
import type { ComponentType, ReactNode } from 'react';
import { Link } from 'react-router';
import { useSetupState } from '../../lib/session';
import { EmptyScreen } from '../../ui/EmptyScreen';

/*
 * The screens other capabilities fill. Until one is built it says so plainly, names what it will hold, and
 * claims nothing about the workspace's data (no "no contacts yet" beside a list of customers). They load on
 * demand as one small chunk.
 */
type Icon = ComponentType<{ size?: number; stroke?: number }>;

/** NOT_BUILT: the first sentence of every screen that is not built yet. */
export const NOT_BUILT = 'This screen is not available yet in this version of Parley.';

function NotBuilt({ icon, title, will, action }: { icon: Icon; title: string; will: string; action?: ReactNode }) {
  return (
    <EmptyScreen icon={icon} title={title} text={`${NOT_BUILT} ${will}`.trim()}>
      {action}
    </EmptyScreen>
  );
}

/** The trading pages designed in docs/trading.md and not built yet. */
export const PredictionValidatorScreen = () => (
  <NotBuilt
    icon={IconBrain}
    title="Prediction Validator"
    will="It will record analysts’ predictions and check them against what customers said."
  />
);
export const AiLearningScreen = () => (
  <NotBuilt
    icon={IconBrain}
    title="AI Learning"
    will="It will show what the engine learned about each instrument from customers’ messages."
  />
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

/** SHELL-05 .. SHELL-08: public token pages; their owners check the token. Until one is built: an honest answer. */
export function TokenPage({ what }: { what: string }) {
  return (
    <Center mih="100dvh" p="md">
      <Stack align="center" ta="center" maw={420}>
        <Title order={1} size="h3">
          {what}
        </Title>
        <Text c="dimmed">
          This page is not available yet in this version of Parley. Ask the sender to reach you another way.
        </Text>
      </Stack>
    </Center>
  );
}
