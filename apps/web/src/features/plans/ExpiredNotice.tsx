import { Alert, Button, Group } from '@mantine/core';
import { EXPIRED_SUBSCRIPTION, EXPIRED_TRIAL } from '@parley/contracts';
import { Link } from 'react-router';

/** PLAN-12, PLAN-14, PLAN-15: shown while the trial or the subscription has run out. */
export function ExpiredNotice({ expired }: { expired: 'trial' | 'subscription' | null | undefined }) {
  if (!expired) return null;
  return (
    <Alert color="orange" variant="light" role="alert" data-testid="expired-notice">
      <Group justify="space-between">
        <span>{expired === 'trial' ? EXPIRED_TRIAL : EXPIRED_SUBSCRIPTION}</span>
        <Group gap="xs">
          {expired === 'trial' ? (
            <Button size="xs" component={Link} to="/plan">
              Upgrade
            </Button>
          ) : (
            <>
              <Button size="xs" variant="default" component={Link} to="/plan">
                Switch Plan
              </Button>
              <Button size="xs" component={Link} to="/payment">
                Pay Now
              </Button>
            </>
          )}
        </Group>
      </Group>
    </Alert>
  );
}
