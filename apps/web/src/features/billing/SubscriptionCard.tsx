import { Button, Card, Group, Modal, Stack, Text, TextInput, Title } from '@mantine/core';
import {
  PLAN_NAMES,
  parseQuantity,
  paymentTotal,
  SUBSCRIPTION_STRINGS as S,
  type SubscriptionInfo,
} from '@parley/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { formatDateTime } from '../../lib/dates';
import { errorText } from '../../lib/http';
import { billingKeys } from '../../lib/queryKeys';
import { toast } from '../../ui/toast';
import { billingApi } from './api';

/**
 * Design: the running subscription for admins: plan, users, the monthly total, when it renews or (cancelled)
 * ends; Change users, Cancel subscription (at the period's end, after a confirmation) and Keep subscription.
 */
export function SubscriptionCard() {
  const q = useQuery({ queryKey: billingKeys.subscription, queryFn: billingApi.subscription });
  const queryClient = useQueryClient();
  const [seatsOpen, setSeatsOpen] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const [busy, setBusy] = useState(false);
  const sub = q.data?.data ?? null;
  if (!sub) return null;
  const run = async (f: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await f();
      await queryClient.invalidateQueries({ queryKey: ['billing'] });
      return true;
    } catch (e) {
      toast({ message: errorText(e), color: 'red' });
      return false;
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card withBorder radius="md" padding="lg" data-testid="subscription-card">
      <Stack gap="xs">
        <Title order={3} size="h4">
          {S.title}
        </Title>
        <Text data-testid="subscription-summary">
          {PLAN_NAMES[sub.plan]}, {sub.seats} {sub.seats === 1 ? 'user' : 'users'}: {sub.currency} {sub.total} a month
        </Text>
        {sub.cancel_at !== null ? (
          <Text c="orange" data-testid="subscription-ends">
            {S.endsOn(formatDateTime(sub.cancel_at))}
          </Text>
        ) : (
          sub.ends_at !== null && <Text c="dimmed">{S.renews(formatDateTime(sub.ends_at))}</Text>
        )}
        <Group>
          <Button variant="default" disabled={busy || sub.cancel_at !== null} onClick={() => setSeatsOpen(true)}>
            {S.changeSeats}
          </Button>
          {sub.cancel_at === null ? (
            <Button variant="default" color="red" disabled={busy} onClick={() => setConfirm(true)}>
              {S.cancel}
            </Button>
          ) : (
            <Button disabled={busy} onClick={() => void run(billingApi.resume)}>
              {S.keep}
            </Button>
          )}
        </Group>
      </Stack>
      <Modal opened={confirm} onClose={() => setConfirm(false)} title={S.cancel} centered size="sm">
        <Stack>
          <Text>{S.cancelConfirm}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirm(false)}>
              {S.keep}
            </Button>
            <Button
              color="red.9"
              loading={busy}
              data-testid="confirm-cancel-subscription"
              onClick={() => void run(billingApi.cancel).then(() => setConfirm(false))}
            >
              {S.cancel}
            </Button>
          </Group>
        </Stack>
      </Modal>
      {seatsOpen && <SeatsDialog sub={sub} busy={busy} onClose={() => setSeatsOpen(false)} run={run} />}
    </Card>
  );
}

function SeatsDialog({
  sub,
  busy,
  onClose,
  run,
}: {
  sub: SubscriptionInfo;
  busy: boolean;
  onClose(): void;
  run(f: () => Promise<unknown>): Promise<boolean>;
}) {
  const [value, setValue] = useState(String(sub.seats));
  const n = parseQuantity(value);
  return (
    <Modal opened onClose={onClose} title={S.changeSeats} centered size="sm">
      <Stack>
        <TextInput
          label="Number of users"
          inputMode="numeric"
          value={value}
          maxLength={6}
          onChange={(e) => setValue(e.currentTarget.value.replace(/\D/g, ''))}
          data-autofocus
        />
        <Text size="sm">
          {S.newTotal}:{' '}
          <Text span fw={600} data-testid="seats-total">
            {n === null ? '–' : `${sub.currency} ${paymentTotal(n, sub.price, sub.tax)}`}
          </Text>
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button
            disabled={n === null || n === sub.seats}
            loading={busy}
            onClick={() => void run(() => billingApi.seats(value)).then((ok) => ok && onClose())}
          >
            {S.save}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
