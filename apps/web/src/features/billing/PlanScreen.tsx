import { Badge, Button, Card, Container, List, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { PLAN_NAMES, PLANS } from '@parley/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { billingKeys } from '../../lib/queryKeys';
import { useSession } from '../../lib/session';
import { billingApi } from './api';
import { PaymentDialog } from './PaymentDialog';
import { PaymentHistory } from './PaymentHistory';
import { SubscriptionCard } from './SubscriptionCard';
import { PLAN_CARDS, PLAN_SCREEN } from './strings';

/**
 * PLAN-04..PLAN-07: the plans page. Four cards; purchase only while the plan is 0 (trial) and no payment is
 * in progress; every card disabled at plan 4; Enterprise is contact sales. On `/payment` (Pay Now) a
 * subscribed account pays for its own plan.
 */
export function PlanScreen() {
  const { state } = useSession();
  const session = state.phase === 'signedIn' ? state.session : undefined;
  const current = session?.plan ?? PLANS.console;
  const admin = session?.type === 'admin';
  const { pathname } = useLocation();
  const pricing = useQuery({ queryKey: billingKeys.pricing, queryFn: billingApi.pricing });
  const queryClient = useQueryClient();
  const [buying, setBuying] = useState<{ plan: number; sendPlan: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  const onBusy = useCallback((b: boolean) => setBusy(b), []);
  const subscribed = current >= PLANS.starter && current <= PLANS.pro;
  const canPurchase = current === PLANS.trial && !busy && admin;
  const allDisabled = current === PLANS.enterprise;

  return (
    // Full width up to its size: centred by its margins in the shell's column, it would otherwise take the
    // width of its widest content (the history table) and widen the page on a phone.
    <Container size="lg" py="lg" w="100%">
      <Stack>
        <Title order={2}>{PLAN_SCREEN.title}</Title>
        <Text c="dimmed">
          {PLAN_SCREEN.intro} {PLAN_SCREEN.current}:{' '}
          <Text span fw={600} data-testid="current-plan">
            {PLAN_NAMES[current] ?? String(current)}
          </Text>
        </Text>
        {!admin && <Text size="sm">{PLAN_SCREEN.adminsOnly}</Text>}
        {pathname === '/payment' && subscribed && admin && (
          <Button w="fit-content" onClick={() => setBuying({ plan: current, sendPlan: false })} disabled={busy}>
            {PLAN_SCREEN.payNow}
          </Button>
        )}
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
          {PLAN_CARDS.map((c) => {
            const price = pricing.data?.data.find((r) => r.plan === c.plan);
            const enterprise = c.plan === PLANS.enterprise;
            return (
              <Card key={c.plan} withBorder padding="lg" data-testid={`plan-card-${c.plan}`}>
                <Stack gap="xs" h="100%">
                  <Title order={3} size="h4">
                    {c.name} {current === c.plan && <Badge variant="light">{PLAN_SCREEN.current}</Badge>}
                  </Title>
                  <Text fw={600}>
                    {enterprise ? 'Pay as you go' : price ? `${price.currency} ${price.price}` : '…'}{' '}
                    {!enterprise && (
                      <Text span size="sm" c="dimmed" fw={400}>
                        {PLAN_SCREEN.perUser}
                      </Text>
                    )}
                  </Text>
                  <List size="sm" spacing={2}>
                    {c.limits.map((l) => (
                      <List.Item key={l}>{l}</List.Item>
                    ))}
                  </List>
                  <Text size="sm" c="dimmed" style={{ flexGrow: 1 }}>
                    {c.channels}
                  </Text>
                  {enterprise ? (
                    <Button variant="default" component={Link} to="/support" disabled={allDisabled}>
                      {PLAN_SCREEN.contact}
                    </Button>
                  ) : (
                    <Button
                      disabled={!canPurchase || allDisabled}
                      onClick={() => setBuying({ plan: c.plan, sendPlan: true })}
                    >
                      {PLAN_SCREEN.purchase}
                    </Button>
                  )}
                </Stack>
              </Card>
            );
          })}
        </SimpleGrid>
        {admin && <SubscriptionCard />}
        {admin && <PaymentHistory />}
      </Stack>
      {buying && (
        <PaymentDialog
          plan={buying.plan}
          sendPlan={buying.sendPlan}
          onBusy={onBusy}
          onClose={() => {
            setBuying(null);
            setBusy(false);
            // The payment just made (or given up) joins the history.
            void queryClient.invalidateQueries({ queryKey: billingKeys.history(1).slice(0, 2) });
            void queryClient.invalidateQueries({ queryKey: billingKeys.subscription });
          }}
        />
      )}
    </Container>
  );
}
