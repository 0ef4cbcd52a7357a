import { Alert, Button, Group, List, Stack, Text } from '@mantine/core';
import { type ChannelListAnswer, KIND_NAMES } from '@parley/contracts';
import { Link } from 'react-router';
import { C } from './strings';

/**
 * PLAN-20..22: the providers the plan does not include, each in the words a connect would be refused with
 * (the plan and the plan that has it), and the way to the Plans page. The form offers none of them.
 */
export function NotOnPlan({ items }: { items: ChannelListAnswer['notOnPlan'] }) {
  if (items.length === 0) return null;
  return (
    <Alert color="gray" variant="light" title={C.notOnPlanTitle} data-testid="channels-not-on-plan">
      <Stack gap="xs">
        <List size="sm" spacing={4}>
          {items.map((i) => (
            <List.Item key={i.kind} data-kind={i.kind} data-testid="channel-not-on-plan">
              <Text span size="sm" fw={600}>
                {KIND_NAMES[i.kind]}
              </Text>
              {': '}
              {i.description}
            </List.Item>
          ))}
        </List>
        <Group>
          <Button size="xs" variant="default" component={Link} to="/plan" data-testid="channels-see-plans">
            {C.seePlans}
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}
