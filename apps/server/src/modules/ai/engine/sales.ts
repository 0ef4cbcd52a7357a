import type { AiAnalysis, SalesSignal } from '@parley/contracts';
import { type CueSpec, compileLexicon, confidenceOf, cuesOf, findCues, type Sentences, scoreOf } from './match.js';

/**
 * Sales signals. buying_intent: the customer asks what something costs, whether it can be ordered or shipped
 * to them, or says they want to buy, subscribe or try. upsell: an existing customer wants more (upgrade, a
 * bigger plan, more users or storage, an add-on, a limit reached). Past purchases ("I ordered...") and
 * complaints about prices are not intent; a negated cue ("I don't want to upgrade", "not interested in the
 * premium plan") counts for nothing. When both are present, the one with more cues wins; a tie is buying
 * intent (the customer is asking to buy something, whatever the tier).
 */

const BUYING_INTENT: CueSpec[] = [
  {
    cue: 'how much is|are|does|do|would|will|for|per|to|it|the|a|an|money|cost*|extra|shipping|delivery',
    means: 'asks what it costs',
  },
  {
    cue: 'what|whats|send|get|request|give|share|enquire|inquire|about|know ~3 price|prices|pricing|quote|quotation|cost|costs|rates',
    means: 'asks for a price or a quote',
  },
  { cue: 'what|whats would|will|does|do ~6 cost', means: 'asks what it costs' },
  { cue: 'price list', means: 'asks for the price list' },
  { cue: 'price|prices|pricing|quote|quotation|estimate|proposal for', means: 'asks for a price or a quote' },
  { cue: 'quote|quotation|estimate|proposal on', means: 'asks for a price or a quote' },
  { cue: 'can|could|may i|we order|preorder|pre-order|buy|purchase', means: 'asks whether they can buy' },
  { cue: 'place|make|put an order', means: 'wants to place an order' },
  {
    cue: 'i|id|we|wed|im|were want|like|love|wish|ready|looking|planning|going|thinking|hoping|keen|plan to|of|on? order|buy|purchase|subscribe|sign|ordering|buying|purchasing',
    means: 'says they want to buy',
  },
  { cue: 'would like|love to order|buy|purchase|subscribe', means: 'says they want to buy' },
  {
    cue: 'thinking|planning|looking|hoping|ready|keen|happy of|to|on ordering|buying|purchasing|order|buy|purchase',
    means: 'says they want to buy',
  },
  { cue: 'interested in buying|purchasing|ordering|getting|your', means: 'says they want to buy' },
  { cue: 'you|u ship|deliver|post ~4 to|internationally|abroad|overseas|on', means: 'asks about delivery to them' },
  { cue: 'in|back stock', means: 'asks whether it is in stock' },
  { cue: 'still|currently available', means: 'asks whether it is available' },
  { cue: 'do|does you sell|stock|make', means: 'asks whether they sell it' },
  {
    cue: 'do|does you accept|take ~2 payment|payments|card|cards|cash|paypal|bitcoin|crypto|amex|visa|cheque|cheques|klarna|apple',
    means: 'asks how they can pay',
  },
  { cue: 'subscribe', means: 'wants to subscribe' },
  { cue: 'sign up|signup', means: 'wants to sign up' },
  { cue: 'book|schedule|arrange|get|see a? demo', means: 'asks for a demo' },
  { cue: 'free trial', means: 'asks about a trial' },
  { cue: 'start|try|get|extend ~2 trial', means: 'asks about a trial' },
  { cue: 'is|are there a|any ~2 discount|discounts|offer|offers', means: 'asks about a discount' },
  { cue: 'discount if|for|on', means: 'asks about a discount' },
  { cue: 'wholesale|bulk|volume pricing|order|discount|price|prices|rates', means: 'asks about buying in bulk' },
];

const UPSELL: CueSpec[] = [
  { cue: 'upgrade|upgrading', means: 'wants to upgrade' },
  {
    cue: 'premium|pro|business|enterprise|higher|bigger|larger|next|top|family|team|advanced plan|tier|version|package|level|subscription|support',
    means: 'asks about a higher plan',
  },
  { cue: 'next plan|tier|level up', means: 'asks about a higher plan' },
  {
    cue: 'more|extra|additional staff|user|team? users|seats|licences|licenses|accounts|logins|storage|space|features|calls|credits|members',
    means: 'wants more of the product',
  },
  { cue: 'add|adding ~3 users|seats|licences|licenses|accounts|logins|members', means: 'wants more users' },
  { cue: 'add-on|addon|add-ons|addons', means: 'asks about an add-on' },
  { cue: 'add on', means: 'asks about an add-on' },
  { cue: 'hit|reached|reach|exceeded|over ~3 limit|limits|quota|cap', means: 'has reached a limit of their plan' },
  {
    cue: 'running|ran out of ~2 storage|space|seats|licences|licenses|calls|credits|users|minutes|data',
    means: 'has reached a limit of their plan',
  },
  {
    cue: 'increase|raise|expand ~2 plan|limit|limits|quota|storage|seats|subscription',
    means: 'wants more of the product',
  },
  {
    cue: 'plan|tier|package|subscription ~2 isnt|not enough',
    negatable: false,
    means: 'has outgrown their plan',
  },
  { cue: 'options above', means: 'asks about a higher plan' },
  {
    cue: 'bump|boost|increase|raise|expand|double ~3 storage|plan|limit|limits|seats|licences|licenses|quota|allowance',
    means: 'wants more of the product',
  },
  { cue: 'higher|bigger|larger|more limit|limits|quota|cap|allowance', means: 'wants more of the product' },
  {
    cue: 'switch|switching|move|moving|go ~3 to ~2 plan|tier|plus|pro|premium|annual|enterprise|business',
    means: 'asks about a higher plan',
  },
  {
    cue: 'new starters|hires|joiners|employees|staff|members|colleagues',
    near: ['licence*', 'license*', 'seat*', 'account*', 'login*', 'user*'],
    means: 'wants more users',
  },
];

/** A sentence saying any of these puts its sales cues out of play ("Not interested in premium, thanks"). */
const OPT_OUT: CueSpec[] = [
  { cue: 'not interested', negatable: false, means: '' },
  { cue: 'no intention|plans', negatable: false, means: '' },
  { cue: 'stop emailing|sending|calling|messaging', negatable: false, means: '' },
  { cue: 'waste of money|time', negatable: false, means: '' },
  { cue: 'downgrad*', negatable: false, means: '' },
  { cue: 'move|put|take me back', negatable: false, means: '' },
];

const lex = {
  buying: compileLexicon(BUYING_INTENT),
  upsell: compileLexicon(UPSELL),
  optOut: compileLexicon(OPT_OUT),
};

/** "Please stop emailing me about upgrading": stop negates like not; sales cues look 5 words back. */
const SALES_FIND = { negationWindow: 5, extraNegators: ['stop'] };

/** Past-tense "upgrade" is an event, not a wish: "since the upgrade", "after the last upgrade". */
const EVENT_BEFORE_UPGRADE = new Set(['the', 'this', 'that', 'since', 'after', 'latest', 'last', 'recent', 'your']);

export function readSales(s: Sentences): AiAnalysis['sales'] {
  const optedOut = new Set(findCues(s, lex.optOut).map((h) => h.sentence));
  const keep = (h: { sentence: number; start: number; cue: { cue: string } }) => {
    if (optedOut.has(h.sentence)) return false;
    if (h.cue.cue.startsWith('upgrade|')) {
      const before = s.list[h.sentence]![h.start - 1];
      if (before && EVENT_BEFORE_UPGRADE.has(before)) return false;
    }
    return true;
  };
  const buying = findCues(s, lex.buying, SALES_FIND).filter(keep);
  const upsell = findCues(s, lex.upsell, SALES_FIND).filter(keep);
  if (buying.length === 0 && upsell.length === 0) return { value: null, confidence: 1, cues: [] };
  const value: SalesSignal = scoreOf(upsell) > scoreOf(buying) ? 'upsell' : 'buying_intent';
  const hits = value === 'upsell' ? upsell : buying;
  const other = value === 'upsell' ? buying : upsell;
  // Cues of the other signal lower the confidence: the message could be read either way.
  return { value, confidence: confidenceOf(scoreOf(hits) - 0.5 * scoreOf(other)), cues: cuesOf(hits) };
}
