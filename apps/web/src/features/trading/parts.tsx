import { Alert, Badge, SegmentedControl, Stack, Title } from '@mantine/core';
import { CHANNELS, moodOf } from '@parley/contracts';
import type { ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { useSession } from '../../lib/session';
import { T } from './strings';

/** NAV-07, NAV-24: the trading pages are for admins on the trading host; anyone else is told plainly. */
export function TradingGate({ title, children }: { title: string; children: ReactNode }) {
  const { state } = useSession();
  const s = state.phase === 'signedIn' ? state.session : undefined;
  const allowed = s?.type === 'admin' && s.productDetails?.variant === 'trading';
  if (allowed) return children;
  return (
    <Stack gap="md">
      <Title order={1} size="h2">
        {title}
      </Title>
      <Alert color="gray" data-testid="trading-not-allowed">
        {T.notAllowed}
      </Alert>
    </Stack>
  );
}

export const channelName = (c: string) => (CHANNELS as Record<string, string>)[c] ?? c;

const MOOD_COLOR = { Bullish: 'teal', Bearish: 'red', Neutral: 'gray' } as const;

/** Bullish / Neutral / Bearish with the score (hundredths shown as -1.00 .. +1.00). */
export function MoodBadge({ sentiment }: { sentiment: number | null }) {
  if (sentiment === null)
    return (
      <Badge color="gray" variant="outline">
        –
      </Badge>
    );
  const mood = moodOf(sentiment);
  const score = `${sentiment > 0 ? '+' : ''}${(sentiment / 100).toFixed(2)}`;
  return (
    <Badge color={MOOD_COLOR[mood]} variant="light" c="var(--mantine-color-text)" data-testid="trading-mood" tt="none">
      {mood} {score}
    </Badge>
  );
}

const RANGES = [7, 30, 90] as const;
const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The range in the address (`?days=`), the last 7, 30 or 90 UTC days to today. */
export function useRange(): { days: number; from: string; to: string; control: ReactNode } {
  const [params, setParams] = useSearchParams();
  const asked = Number(params.get('days'));
  const days = (RANGES as readonly number[]).includes(asked) ? asked : 30;
  const now = Date.now();
  const control = (
    <SegmentedControl
      aria-label={T.range}
      size="xs"
      value={String(days)}
      onChange={(v) =>
        setParams(
          (p) => {
            p.set('days', v);
            return p;
          },
          { replace: true },
        )
      }
      data={RANGES.map((n) => ({ value: String(n), label: T.days(n) }))}
    />
  );
  return { days, from: day(now - (days - 1) * DAY_MS), to: day(now), control };
}

/** Colours for the channels of a chart, in order. */
export const SERIES_COLORS = ['blue.6', 'teal.6', 'orange.6', 'grape.6', 'cyan.6', 'pink.6', 'lime.7', 'indigo.6'];
