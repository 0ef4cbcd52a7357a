import { Alert, Button, Center, Group, Loader, Modal, Stack, Table, Text, TextInput } from '@mantine/core';
import { BILLING_SECTION, PAY_STRINGS, PLAN_NAMES, paymentTotal, taxPercent } from '@parley/contracts';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { errorText } from '../../lib/http';
import { billingKeys } from '../../lib/queryKeys';
import { useRefreshSession } from '../../lib/session';
import { shell } from '../../lib/shellStore';
import { billingApi } from './api';

/** PAY-07: how long the starting spinner shows; PAY-11: how often the popup is checked. */
export const STARTING_MS = 2000;
export const POPUP_CHECK_MS = 1000;

type Phase =
  | { k: 'starting' }
  | { k: 'form' }
  | { k: 'progress' }
  | { k: 'failed'; title: string; desc: string }
  | { k: 'success' };

/**
 * PAY-01..PAY-20: the payment dialog. Starting (spinner ~2 s), the form, in progress (cannot be closed)
 * while the provider's popup is open, then success or failed from the payment's status when the popup closes.
 */
export function PaymentDialog({
  plan,
  sendPlan,
  onClose,
  onBusy,
}: {
  /** The plan being paid for (PAY-01). */
  plan: number;
  /** PAY-25: the plan goes with the request only while the account has none. */
  sendPlan: boolean;
  onClose: () => void;
  /** PLAN-05: told while a payment is in progress. */
  onBusy: (busy: boolean) => void;
}) {
  const [phase, setPhase] = useState<Phase>({ k: 'starting' });
  const [quantity, setQuantity] = useState('1');
  const timers = useRef<{ start?: number; poll?: number }>({});
  const refreshSession = useRefreshSession();
  const pricing = useQuery({ queryKey: billingKeys.pricing, queryFn: billingApi.pricing });
  const row = pricing.data?.data.find((r) => r.plan === plan);

  useEffect(() => {
    const t = timers.current;
    t.start = window.setTimeout(() => setPhase({ k: 'form' }), STARTING_MS);
    return () => {
      window.clearTimeout(t.start);
      window.clearInterval(t.poll);
    };
  }, []);
  useEffect(() => onBusy(phase.k === 'progress'), [phase.k, onBusy]);

  const valid = /^\d+$/.test(quantity) && Number(quantity) > 0;
  const fail = (title: string, desc: string) => setPhase({ k: 'failed', title, desc });

  async function pay() {
    setPhase({ k: 'progress' });
    let created: Awaited<ReturnType<typeof billingApi.create>>;
    try {
      created = await billingApi.create(quantity, sendPlan ? plan : undefined);
    } catch (err) {
      return fail(PAY_STRINGS.createFailed, errorText(err));
    }
    const popup = window.open(created.url, 'parley-payment', 'popup,width=520,height=720');
    if (!popup) return fail(PAY_STRINGS.createFailed, 'The payment window could not be opened; allow pop-ups.');
    timers.current.poll = window.setInterval(async () => {
      if (!popup.closed) return;
      window.clearInterval(timers.current.poll);
      try {
        const s = await billingApi.status(created.payment_ref);
        if (s.status === 'SUCCESS') {
          setPhase({ k: 'success' });
          // PAY-16: the auth check brings the new plan to the whole app.
          await refreshSession().catch(() => undefined);
        } else fail(PAY_STRINGS.createFailed, s.status === 'FAILED' ? s.payment_desc : '');
      } catch (err) {
        fail(PAY_STRINGS.statusFailed, errorText(err));
      }
    }, POPUP_CHECK_MS);
  }

  const locked = phase.k === 'progress';
  return (
    <Modal
      opened
      onClose={locked ? () => undefined : onClose}
      closeOnClickOutside={!locked}
      closeOnEscape={!locked}
      withCloseButton={!locked}
      title="Payment"
      centered
      data-testid="payment-dialog"
    >
      {phase.k === 'starting' && (
        <Center py="xl" data-testid="payment-starting">
          <Loader aria-label="Loading" />
        </Center>
      )}
      {phase.k === 'form' && (
        <Stack data-testid="payment-form">
          <Table variant="vertical" withTableBorder>
            <Table.Tbody>
              <Table.Tr>
                <Table.Th>Plan</Table.Th>
                <Table.Td data-testid="payment-plan">{PLAN_NAMES[plan] ?? String(plan)}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>Price per user per month</Table.Th>
                <Table.Td data-testid="payment-price">
                  {row ? `${row.currency} ${row.price}` : pricing.isError ? errorText(pricing.error) : '…'}
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>{PAY_STRINGS.taxLabel}</Table.Th>
                <Table.Td data-testid="payment-tax">{row ? `${taxPercent(row.tax)}%` : '…'}</Table.Td>
              </Table.Tr>
            </Table.Tbody>
          </Table>
          <TextInput
            label="Number of users"
            inputMode="numeric"
            value={quantity}
            // PAY-17: digits only; empty is allowed while typing.
            onChange={(e) => {
              const v = e.currentTarget.value;
              if (/^\d{0,6}$/.test(v)) setQuantity(v);
            }}
            error={quantity === '' ? PAY_STRINGS.empty : undefined}
            data-autofocus
          />
          <Group justify="space-between">
            <Text fw={600}>Total</Text>
            <Text fw={600} data-testid="payment-total">
              {row && valid ? `${row.currency} ${paymentTotal(Number(quantity), row.price, row.tax)}` : '-'}
            </Text>
          </Group>
          <Button onClick={pay} disabled={!valid}>
            {PAY_STRINGS.continue}
          </Button>
        </Stack>
      )}
      {phase.k === 'progress' && (
        <Stack align="center" py="lg" data-testid="payment-progress">
          <Loader aria-label="Payment in progress" />
          <Text ta="center">{PAY_STRINGS.inProgress}</Text>
        </Stack>
      )}
      {phase.k === 'failed' && (
        <Stack data-testid="payment-failed">
          <Alert color="red" title={phase.title} role="alert">
            {phase.desc}
          </Alert>
          <Group justify="flex-end">
            {phase.desc === PAY_STRINGS.billingMissing && (
              <Button
                onClick={() => {
                  onClose();
                  shell.openSettings(BILLING_SECTION);
                }}
              >
                {PAY_STRINGS.addNow}
              </Button>
            )}
            <Button variant="default" onClick={onClose}>
              Close
            </Button>
          </Group>
        </Stack>
      )}
      {phase.k === 'success' && (
        <Stack data-testid="payment-success">
          <Alert color="green" title="Payment successful">
            {PAY_STRINGS.success}
          </Alert>
          <Group justify="flex-end">
            <Button onClick={onClose}>Done</Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
