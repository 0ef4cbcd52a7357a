import type { AiAnalysis, ScamKind } from '@parley/contracts';
import {
  type CueSpec,
  compileLexicon,
  confidenceOf,
  cuesOf,
  findCues,
  type Hit,
  type Sentences,
  scoreOf,
} from './match.js';

/**
 * Scam signals: what a fraudster's message to the team looks like, or a customer's report of one ("I got a
 * text saying I won a prize, is it you?"). Four kinds, one answered, in this order:
 * - urgency_pressure: a concrete ask (pay elsewhere, or hand over a credential) under time pressure;
 * - payment_redirection: pay to new bank details, gift cards, crypto wallets, money transfer services;
 * - credential_request: asks the reader for a password, one-time code, PIN, CVV or login details;
 * - known_phrasing: the classic wordings (you have won, tax refund, your account will be suspended...).
 * Urgency alone flags nothing: an upset customer is often in a hurry.
 */

/** Words that make "the new account" a matter of payment. */
const PAYMENT_WORDS = [
  'pay*',
  'remit*',
  'transfer*',
  'wire',
  'settle*',
  'invoice*',
  'rent',
  'balance',
  'amount',
  'fee*',
];
const CARD_BRANDS = 'gift|itunes|steam|play|apple|amazon|prepaid|ebay';
/** The customer speaking of their own account or card: not a request to pay elsewhere. */
const FIRST_PERSON = ['i', 'im', 'ive', 'id', 'my', 'me'];
const CRYPTO = 'bitcoin|btc|usdt|crypto*|ethereum|eth|tether';

const PAYMENT_REDIRECTION: CueSpec[] = [
  {
    cue: 'bank|banking|payment|remittance|account|beneficiary|wire details|detail|info|information have|has|were|are? been? changed|updated|amended',
    means: 'says the bank details to pay have changed',
  },
  {
    cue: 'we|weve|have|has|owner|they|company changed|moved|switched our|his|her|their|its? bank|banks|banking',
    means: 'says the payee moved to another bank',
  },
  {
    cue: 'our|the|this|a|your new bank|account|iban|beneficiary|banking|wallet',
    near: PAYMENT_WORDS,
    means: 'asks for a payment to a new account',
  },
  {
    cue: 'different|another|other account|bank|iban',
    near: PAYMENT_WORDS,
    without: ['refund', 'my'],
    means: 'asks for a payment to another account',
  },
  {
    cue: 'to|into the|this account|details below|above|attached',
    near: PAYMENT_WORDS,
    means: 'points a payment at account details in the message',
  },
  {
    cue: 'not|instead the? usual|old|previous|normal|former|original one|account|details|bank',
    negatable: false,
    means: 'says not to pay the usual account',
  },
  {
    cue: 'old|previous|usual|former account|one|details|bank ~3 frozen|closed|blocked|suspended|no|not|invalid',
    negatable: false,
    means: 'says the usual account can no longer be paid',
  },
  {
    cue: 'old|previous|usual|former account|one|details|bank ~3 hacked|compromised',
    near: PAYMENT_WORDS,
    sentenceWithout: FIRST_PERSON,
    negatable: false,
    means: 'says the usual account was hacked and not to pay it',
  },
  {
    cue: `pay|paid|paying|payment|fee|fees|settle|cover|charge|charges|cost ~4 with|by|using|in|via ~3 ${CARD_BRANDS} card|cards|voucher|vouchers`,
    means: 'asks for payment in gift cards',
  },
  {
    cue: 'buy|get|grab|purchase ~5 card|cards',
    near: ['code', 'codes', 'pin', 'pins'],
    means: 'asks to buy cards and pass on their codes',
  },
  { cue: `send|transfer|pay|deposit|move ~5 ${CRYPTO}|wallet`, means: 'asks for payment in cryptocurrency' },
  { cue: 'wallet address', means: 'gives a crypto wallet to pay' },
  { cue: `only accept|take ${CRYPTO}`, means: 'asks for payment in cryptocurrency' },
  { cue: 'western union', means: 'asks for payment by money transfer service' },
  { cue: 'moneygram', means: 'asks for payment by money transfer service' },
  { cue: 'safe|secure|holding account', means: 'asks to move money to a "safe account"' },
  {
    cue: 'account|accounts|bank|iban|banking|beneficiary|details',
    near: [...PAYMENT_WORDS, 'directed'],
    alsoNear: [
      'new',
      'updated',
      'changed',
      'change',
      'different',
      'another',
      'instead',
      'moved',
      'switched',
      'closed',
      'closing',
      'amended',
    ],
    sentenceWithout: FIRST_PERSON,
    means: 'payments to go to changed bank details',
  },
  {
    cue: 'zelle|venmo|cashapp|remitly|paysafecard',
    near: ['pay*', 'send*', 'transfer*', 'deposit*'],
    sentenceWithout: ['accept', 'take', 'can'],
    means: 'asks for payment by a money transfer app',
  },
  {
    cue: 'cash app',
    near: ['pay*', 'send*'],
    sentenceWithout: ['accept', 'take', 'can'],
    means: 'asks for payment by a money transfer app',
  },
  { cue: 'money order|orders', near: ['pay*', 'send*'], means: 'asks for payment by money order' },
  {
    cue: 'friends and family',
    near: ['pay*', 'send*', 'paypal'],
    means: 'asks for a PayPal payment without buyer protection',
  },
  {
    cue: `${CARD_BRANDS}|razer|google card|cards|voucher|vouchers|codes`,
    near: ['pay*', 'fee*', 'settle*', 'only'],
    sentenceWithout: [...FIRST_PERSON, 'paid'],
    means: 'asks for payment in gift cards',
  },
  {
    cue: 'to|at the|this address|wallet below|above|provided',
    near: ['send*', 'transfer*', 'pay*', 'deposit*'],
    means: 'asks for a transfer to a given address',
  },
];

const CREDENTIAL_NOUNS =
  'password|passwords|passcode|pin|pins|otp|cvv|cvc|cvv2|credentials|username|2fa|memorable|maiden';
const CODE_KINDS = 'verification|security|sms|otp|authentication|authenticator|2fa|digit|one-time|login|access|card';
const ASK = 'send*|reply*|confirm*|provid*|share|sharing|tell|giv*|enter|forward*|submit*|type|read';

const CREDENTIAL_REQUEST: CueSpec[] = [
  { cue: `${ASK} ~4 ${CREDENTIAL_NOUNS}`, without: ['my'], means: 'asks for a password, code or PIN' },
  {
    cue: `${ASK} ~4 ${CODE_KINDS} code|codes|number|answers|questions|details|word`,
    without: ['my'],
    means: 'asks for a security code or card details',
  },
  {
    cue: `${ASK} ~3 code|codes ~5 phone|mobile|sent|texted|receive|screen`,
    without: ['my'],
    means: 'asks for the code sent to a phone',
  },
  { cue: `what|whats is? your ${CREDENTIAL_NOUNS}`, means: 'asks for a password, code or PIN' },
  {
    cue: `need|require|want your|the ~3 ${CREDENTIAL_NOUNS}|online|login|card`,
    sentenceWithout: ['my'],
    means: 'asks for login or card details',
  },
  {
    cue: `asked|asking|told|wanted me? to ~2 ${ASK} ~4 ${CREDENTIAL_NOUNS}|code|details`,
    near: ['someone', 'caller', 'called', 'they', 'claiming', 'pretending', 'said', 'saying', 'bank', 'phoned', 'rang'],
    negatable: false,
    means: 'reports someone asking for a credential',
  },
  {
    cue: 'asked|asking|wanted|requested|demanded ~3 digit|digits code|number|pin',
    near: ['someone', 'caller', 'called', 'agent', 'phone', 'they', 'text', 'message', 'claiming', 'pretending'],
    // "I asked for the 6 digit code" is the customer's own login.
    sentenceWithout: ['i', 'ive', 'im', 'id'],
    negatable: false,
    means: 'reports someone asking for a code',
  },
  {
    cue: `asked|asking me? for ~3 ${CREDENTIAL_NOUNS}|code|details`,
    near: ['someone', 'caller', 'called', 'they', 'claiming', 'pretending', 'said', 'saying'],
    means: 'reports someone asking for a credential',
  },
];

const URGENCY: CueSpec[] = [
  { cue: 'urgent*', means: 'urgency' },
  { cue: 'immediat*', means: 'urgency' },
  { cue: 'asap', means: 'urgency' },
  { cue: 'right now', means: 'urgency' },
  { cue: 'do it now', means: 'urgency' },
  { cue: 'act now|fast|quickly', means: 'urgency' },
  { cue: 'within|in|next|only _ minutes|mins|hours|hrs|hour|minute', means: 'a short deadline' },
  { cue: '_ minutes|mins|hours|hrs left', means: 'a short deadline' },
  { cue: 'have one|an|_ hour|hours|minutes', means: 'a short deadline' },
  { cue: 'final|last warning|notice|reminder|chance', means: 'a final warning' },
  { cue: 'deadline', means: 'a deadline' },
  { cue: 'next _? hour|hours|minutes|mins', means: 'a short deadline' },
  { cue: 'end of day|business|today', means: 'a short deadline' },
  { cue: 'security alert', means: 'an alarm' },
  { cue: 'before its too late', means: 'urgency' },
  { cue: 'or legal', means: 'a threat if not done' },
];

const KNOWN_PHRASING: CueSpec[] = [
  { cue: 'you|youve|u have? won', means: 'the classic "you have won"' },
  { cue: 'you are|youre a? winner|winners', means: 'the classic "you are a winner"' },
  {
    cue: 'picked|selected|chosen|drawn ~4 promotion|draw|lottery|prize|winner|reward|sweepstake*|giveaway|lucky',
    means: 'a prize out of nowhere',
  },
  {
    cue: 'you|youre are? eligible|entitled|due ~3 refund|rebate|compensation|reward|prize|grant|payout',
    means: 'money out of nowhere',
  },
  { cue: 'unlock|release ~3 withdrawal|funds|winnings|payout', means: 'the advance-fee lure' },
  { cue: 'next of kin|late client|estate of', means: 'the inheritance lure' },
  { cue: 'warrant|arrest', means: 'threatens arrest' },
  { cue: 'restore|regain|reactivate ~3 access|account', means: 'asks to restore access through them' },
  { cue: 'log|sign in|on via|through|using|at ~2 link|portal|below', means: 'asks to log in through a link' },
  { cue: 'login via|through|using|at ~2 link|portal|below', means: 'asks to log in through a link' },
  { cue: 'redelivery|re-delivery fee|charge|payment', means: 'the missed parcel lure' },
  {
    cue: 'won|win|winner|winning ~3 prize|lottery|voucher|reward|cash|draw|iphone|jackpot|sweepstake*|competition',
    means: 'a prize out of nowhere',
  },
  { cue: 'lucky winner', means: 'a prize out of nowhere' },
  { cue: 'your ~2 number|email|ticket|entry|address has? won', means: 'says a number or address won a prize' },
  { cue: 'government|authorities|treasury owes|owe you', means: 'money from the authorities out of nowhere' },
  {
    cue: 'locked|suspended|closed|blocked|deactivated|disabled|frozen|terminated|deleted unless ~4 verify|confirm|validate|update',
    negatable: false,
    means: 'threatens closure unless details are verified',
  },
  { cue: 'your winnings', means: 'a prize out of nowhere' },
  { cue: 'youve|you have? been selected|chosen', means: 'the classic "you have been selected"' },
  { cue: 'claim ~3 prize|reward|winnings|gift|voucher|iphone|cash|inheritance', means: 'asks to claim a prize' },
  { cue: 'irs|hmrc', means: 'a tax authority named out of context' },
  { cue: 'eligible|due|entitled|receive|pending ~4 tax refund|rebate|return', means: 'the tax refund lure' },
  { cue: 'unclaimed', means: 'the unclaimed money lure' },
  { cue: 'inheritance', means: 'the inheritance lure' },
  { cue: 'lottery', means: 'the lottery lure' },
  {
    cue: 'verify|confirm|update|validate|reactivate your ~3 account|details|information|identity|payment|mailbox',
    means: 'asks to "verify your account"',
  },
  {
    cue: 'your ~3 account|id|mailbox|card|domain|service|subscription|membership|electricity will|has|have|is be|been? temporarily|permanently? suspended|locked|closed|deactivated|disabled|deleted|blocked|terminated|frozen|expire*|restricted|disconnected|cancelled|canceled|limited|compromised',
    without: ['my'],
    means: 'threatens that an account will be closed',
  },
  { cue: 'mailbox ~2 full', means: 'the full mailbox lure' },
  { cue: 'unusual|suspicious activity|login|sign-in', means: 'claims unusual activity' },
  {
    cue: 'click|tap|follow ~3 link|here|below ~4 to claim|verify|reschedule|confirm|update|avoid|unlock|secure|release|pay|receive|submit',
    means: 'asks to click a link to act',
  },
  { cue: 'couldnt|could|cannot be? delivered ~6 click|link', negatable: false, means: 'the missed parcel lure' },
];

/** Words that only add to the confidence of a flag raised by the cues above. */
const SUPPORTING: CueSpec[] = [
  { cue: 'congratulations', means: 'a prize-style greeting' },
  { cue: 'dear valued? customer|user|beneficiary|winner|member|client|friend', means: 'an impersonal greeting' },
  { cue: 'release|processing|clearance|handling|unlocking|activation fee|fees', means: 'a fee to receive money' },
  {
    cue: 'scam|phishing|fraud*|legit|genuine',
    means: 'speaks of fraud or a scam (a customer who suspects one, or a caller posing as a fraud team)',
  },
  { cue: 'do not tell anyone', negatable: false, means: 'asks for secrecy' },
  { cue: 'discreet*|confidential', means: 'asks for secrecy' },
];

const lex = {
  payment: compileLexicon(PAYMENT_REDIRECTION),
  credential: compileLexicon(CREDENTIAL_REQUEST),
  urgency: compileLexicon(URGENCY),
  known: compileLexicon(KNOWN_PHRASING),
  supporting: compileLexicon(SUPPORTING),
};

/** Scam cues are read with a wider negation reach: "we will never ask you to share your PIN". */
const SCAM_FIND = { negationWindow: 5 };

export function readScam(s: Sentences): AiAnalysis['scam'] {
  const payment = findCues(s, lex.payment, SCAM_FIND);
  const credential = findCues(s, lex.credential, SCAM_FIND);
  const known = findCues(s, lex.known, SCAM_FIND);
  let value: ScamKind | null = null;
  let hits: Hit[] = [];
  if (payment.length > 0 || credential.length > 0) {
    const urgency = findCues(s, lex.urgency, SCAM_FIND);
    value = urgency.length > 0 ? 'urgency_pressure' : payment.length > 0 ? 'payment_redirection' : 'credential_request';
    hits = [...payment, ...credential, ...urgency, ...known];
  } else if (known.length > 0) {
    value = 'known_phrasing';
    hits = known;
  }
  if (!value) return { value: null, confidence: 1, cues: [] };
  const supporting = findCues(s, lex.supporting, SCAM_FIND);
  hits = [...hits, ...supporting];
  return { value, confidence: confidenceOf(scoreOf(hits) - 0.5 * supporting.length), cues: cuesOf(hits) };
}
