import { z } from 'zod';

/**
 * The trading desk (docs/trading.md; NAV-07, NAV-08, NAV-24): the account's watch list of instruments, the
 * mentions of them in customers' messages with the engine's sentiment, per day and channel.
 */

export const TRADING_LIMITS = { symbol: 12, name: 80, alias: 40, aliases: 10, rangeDays: 366 } as const;
/** The drill-down's page size. */
export const TRADING_MENTION_PAGE = 50;
/** A score above this (hundredths) is Bullish, below its negative Bearish. */
export const TRADING_BULLISH_AT = 20;

export const TRADING_STRINGS = {
  notAllowed: 'The trading desk is for admins on the trading host.',
  analyst: 'Analyst Intelligence',
  insight: 'Integrated Insight',
  predictions: 'Prediction Validator',
  learning: 'AI Learning',
  symbolRequired: 'Give the instrument a symbol.',
  symbolInvalid: 'A symbol has capital letters, digits, ".", "-" or "/", up to 12.',
  nameRequired: 'Give the instrument a name.',
  nameTooLong: `A name has at most ${TRADING_LIMITS.name} characters.`,
  aliasInvalid: `An alias has 2 to ${TRADING_LIMITS.alias} characters.`,
  tooManyAliases: `At most ${TRADING_LIMITS.aliases} aliases.`,
  symbolTaken: (s: string) => `There is already an instrument ${s} on the watch list.`,
  notFound: 'Instrument not found.',
  badDay: 'A day looks like 2026-01-31.',
  badRange: `The range ends on or after its start and spans at most ${TRADING_LIMITS.rangeDays} days.`,
  badChannel: 'Unknown channel.',
} as const;

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, TRADING_STRINGS.badDay);
const noCtl = (s: string) => !/\p{Cc}/u.test(s);

export const Instrument = z.object({
  id: z.number(),
  symbol: z.string(),
  name: z.string(),
  aliases: z.array(z.string()),
  created_at: z.number(),
  /** Mentions read so far. */
  mentions: z.number(),
});
export type Instrument = z.infer<typeof Instrument>;

export const InstrumentInput = z.object({
  symbol: z
    .string({ error: TRADING_STRINGS.symbolRequired })
    .trim()
    .min(1, TRADING_STRINGS.symbolRequired)
    .transform((s) => s.toUpperCase())
    .pipe(z.string().regex(/^[A-Z0-9][A-Z0-9./-]{0,11}$/, TRADING_STRINGS.symbolInvalid)),
  name: z
    .string({ error: TRADING_STRINGS.nameRequired })
    .trim()
    .min(1, TRADING_STRINGS.nameRequired)
    .max(TRADING_LIMITS.name, TRADING_STRINGS.nameTooLong)
    .refine(noCtl, TRADING_STRINGS.nameRequired),
  aliases: z
    .array(
      z
        .string()
        .trim()
        .min(2, TRADING_STRINGS.aliasInvalid)
        .max(TRADING_LIMITS.alias, TRADING_STRINGS.aliasInvalid)
        .refine(noCtl, TRADING_STRINGS.aliasInvalid),
    )
    .max(TRADING_LIMITS.aliases, TRADING_STRINGS.tooManyAliases)
    .default([]),
});
export type InstrumentInput = z.input<typeof InstrumentInput>;

export const InstrumentAnswer = z.object({ result: z.literal('success'), data: Instrument });
export const InstrumentListAnswer = z.object({ result: z.literal('success'), data: z.array(Instrument) });

/** A range of UTC days, inclusive; both optional (the last 30 days to today). */
export const TradingRange = z.object({ from: day.optional(), to: day.optional() });

export const AnalystQuery = TradingRange.extend({
  instrument: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER),
});

/** One UTC day of one channel: how many mentions, their average sentiment in hundredths. */
export const TradingBucket = z.object({
  day: z.string(),
  channel: z.string(),
  mentions: z.number(),
  sentiment: z.number(),
});
export type TradingBucket = z.infer<typeof TradingBucket>;

export const ChannelTotal = z.object({ channel: z.string(), mentions: z.number(), sentiment: z.number() });
export type ChannelTotal = z.infer<typeof ChannelTotal>;

export const AnalystAnswer = z.object({
  result: z.literal('success'),
  instrument: Instrument,
  from: z.string(),
  to: z.string(),
  /** Every day of the range, oldest first (days without mentions too, with 0). */
  days: z.array(z.object({ day: z.string(), mentions: z.number(), sentiment: z.number().nullable() })),
  buckets: z.array(TradingBucket),
  channels: z.array(ChannelTotal),
  total: z.number(),
  sentiment: z.number().nullable(),
});
export type AnalystAnswer = z.infer<typeof AnalystAnswer>;

export const MentionParams = z.object({
  channel: z.string().regex(/^[A-Za-z0-9_]{1,40}$/, TRADING_STRINGS.badChannel),
  id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER),
});
export const MentionQuery = TradingRange.extend({
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

export const TradingMention = z.object({
  message_id: z.number(),
  ticket_id: z.number(),
  ticket_number: z.number(),
  customer: z.string(),
  text: z.string(),
  sentiment: z.number(),
  at: z.number(),
});
export type TradingMention = z.infer<typeof TradingMention>;

export const MentionsAnswer = z.object({
  result: z.literal('success'),
  instrument: Instrument,
  channel: z.string(),
  data: z.array(TradingMention),
  total: z.number(),
});
export type MentionsAnswer = z.infer<typeof MentionsAnswer>;

export const InsightRow = z.object({
  instrument: Instrument,
  mentions: z.number(),
  sentiment: z.number().nullable(),
  before_mentions: z.number(),
  before_sentiment: z.number().nullable(),
  /** This range's average minus the one before; null when either has no mentions. */
  change: z.number().nullable(),
});
export type InsightRow = z.infer<typeof InsightRow>;

export const InsightAnswer = z.object({
  result: z.literal('success'),
  from: z.string(),
  to: z.string(),
  /** Most mentioned first. */
  top: z.array(InsightRow),
  /** Biggest change (either way) first; only rows with a change. */
  movers: z.array(InsightRow),
  total: z.number(),
});
export type InsightAnswer = z.infer<typeof InsightAnswer>;

export type TradingMood = 'Bullish' | 'Bearish' | 'Neutral';
/** NOTIF-08's Bullish and Bearish, and Neutral between them. */
export const moodOf = (sentiment: number): TradingMood =>
  sentiment > TRADING_BULLISH_AT ? 'Bullish' : sentiment < -TRADING_BULLISH_AT ? 'Bearish' : 'Neutral';
