import type { Emotion } from '@parley/contracts';

/**
 * The rule reader's data (RECIPES: no emotion lexicon ships in an npm package here, so the project owns
 * its cues). A cue is a lowercase word, a phrase of words, or a word ending in `*` (any ending: `frustrat*`
 * matches frustrated, frustrating). Matching is on whole words of the lowercased text with apostrophes
 * removed ("don't" is "dont").
 */
export const EMOTION_CUES: Partial<Record<Emotion, string[]>> = {
  anger: ['angry', 'furious', 'outrag*', 'livid', 'ridiculous', 'unacceptable', 'disgrace*', 'fed up', 'sick of'],
  frustration: [
    'frustrat*',
    'annoy*',
    'again and again',
    'still not',
    'still waiting',
    'third time',
    'second time',
    'keep asking',
    'keeps',
    'nobody',
    'no one',
    'waste of time',
    'wasted',
    'how many times',
    'irritat*',
  ],
  complaint: [
    'complain*',
    'broken',
    'damaged',
    'faulty',
    'defective',
    'wrong item',
    'late',
    'delayed',
    'missing',
    'never arrived',
    'poor service',
    'terrible',
    'awful',
    'worst',
  ],
  threat: ['lawyer', 'legal action', 'sue', 'court', 'report you', 'chargeback', 'ombudsman'],
  fear: ['afraid', 'scared', 'worried', 'panic*', 'frighten*', 'terrif*'],
  concerned: ['concern*', 'unsure if', 'not sure if', 'hope nothing', 'is it safe', 'risk'],
  confusion: [
    'confus*',
    'dont understand',
    'do not understand',
    'unclear',
    'makes no sense',
    'puzzl*',
    'what does this mean',
  ],
  disappointment: ['disappoint*', 'let down', 'expected better', 'expected more'],
  dissatisfaction: ['unhappy', 'dissatisf*', 'not good enough', 'not impressed'],
  sadness: ['sad', 'upset', 'heartbroken', 'depress*', 'unfortunately'],
  sarcasm: ['oh great', 'yeah right', 'thanks for nothing', 'just perfect', 'oh wonderful'],
  guilt: ['my fault', 'my mistake', 'my bad', 'i forgot', 'sorry for', 'apologi*'],
  disgust: ['disgust*', 'gross', 'revolting', 'appalling'],
  surprise: ['surpris*', 'unexpected*', 'wow', 'cant believe', 'can not believe', 'shocked'],
  gratitude: ['thank*', 'thx', 'grateful', 'cheers', 'much appreciated'],
  appreciation: ['appreciate*', 'great job', 'well done', 'kind of you', 'helpful'],
  satisfaction: [
    'satisf*',
    'works now',
    'working now',
    'solved',
    'resolved',
    'fixed',
    'perfect',
    'all good',
    'happy with',
  ],
  relief: ['relie*', 'phew', 'finally'],
  joy: ['love it', 'delight*', 'wonderful', 'amazing', 'awesome', 'fantastic', 'brilliant'],
  happy: ['happy', 'glad', 'pleased'],
  excitement: ['excit*', 'cant wait', 'can not wait', 'looking forward'],
  hope: ['hope*', 'hopefully', 'fingers crossed'],
  trust: ['trust*', 'rely on', 'count on', 'confident'],
  commitment: ['i will', 'i promise', 'will pay', 'i agree', 'deal', 'confirm*', 'go ahead'],
  support: ['help me', 'need help', 'can you help', 'assist*', 'support'],
};

/**
 * Cues that carry the opposite when negated (not, no, never, ...): "not happy" reads as dissatisfaction,
 * "not working" as frustration. A negated cue of any other emotion is dropped ("not angry" says nothing).
 */
export const NEGATED_AS: Partial<Record<Emotion, Emotion>> = {
  happy: 'dissatisfaction',
  satisfaction: 'dissatisfaction',
  joy: 'disappointment',
  gratitude: 'dissatisfaction',
  appreciation: 'dissatisfaction',
  trust: 'concerned',
  support: 'frustration',
};

/** Words that negate a cue up to three words after them. */
export const NEGATORS = [
  'not',
  'no',
  'never',
  'dont',
  'doesnt',
  'didnt',
  'isnt',
  'wasnt',
  'cant',
  'cannot',
  'wont',
  'hardly',
  'without',
];

/** "Not working" and the like, which name no emotion cue of their own: frustration. */
export const NEGATED_CUES_AS_FRUSTRATION = ['work*', 'help*', 'respond*', 'answer*', 'arriv*', 'receiv*'];

/** Words that open a question: a message asking one (or ending in "?") is an enquiry. */
export const QUESTION_WORDS = [
  'how',
  'what',
  'when',
  'where',
  'why',
  'which',
  'who',
  'can',
  'could',
  'is',
  'are',
  'do',
  'does',
  'will',
  'would',
];

/**
 * MSG-01 `context`: what a message is about, in order (a tie goes to the earlier). The label is shown to the
 * agent as it is.
 */
export const CONTEXT_CUES: { context: string; cues: string[] }[] = [
  { context: 'Refund', cues: ['refund*', 'money back', 'reimburs*', 'chargeback'] },
  { context: 'Cancellation', cues: ['cancel*', 'unsubscrib*', 'terminat*', 'close my account'] },
  {
    context: 'Delivery',
    cues: ['deliver*', 'parcel', 'package', 'shipping', 'shipment', 'courier', 'tracking', 'arriv*', 'dispatch*'],
  },
  {
    context: 'Billing and payment',
    cues: ['bill*', 'invoice*', 'payment*', 'charged', 'charge', 'card', 'overcharg*', 'receipt', 'pay'],
  },
  {
    context: 'Technical problem',
    cues: ['error', 'bug', 'crash*', 'not working', 'doesnt work', 'broken', 'freez*', 'slow', 'outage', 'down'],
  },
  {
    context: 'Account access',
    cues: ['password', 'log in', 'login', 'sign in', 'locked out', 'two-factor', '2fa', 'verification code', 'account'],
  },
  { context: 'Order', cues: ['order*', 'purchase*', 'bought', 'item*'] },
  { context: 'Appointment', cues: ['appointment*', 'book*', 'reschedul*', 'visit', 'slot'] },
  { context: 'Pricing', cues: ['price*', 'pricing', 'cost*', 'discount*', 'quote', 'plan', 'upgrade', 'downgrade'] },
  {
    context: 'Product information',
    cues: ['feature*', 'spec*', 'compatible', 'size', 'colour', 'color', 'stock', 'available'],
  },
  { context: 'Feedback', cues: ['feedback', 'suggest*', 'review'] },
];
