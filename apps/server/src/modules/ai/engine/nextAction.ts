import type { AiAnalysis, AiCue, NextAction } from '@parley/contracts';
import { type CueSpec, compileLexicon, confidenceOf, cuesOf, findCues, type Sentences, scoreOf } from './match.js';

/**
 * Next best action, by rules tried in this order (the first that fires wins; its cues say why):
 * 1. escalate: a scam signal; a threat (lawyer, legal action, chargeback, ombudsman: the emotion reader's
 *    threat); strong anger (two anger cues, or one with an intensifier, capitals or "!!"); a formal complaint
 *    or a request for a manager.
 * 2. ask_for_id: an account- or identity-sensitive request: change the email, address, phone, name or bank
 *    details; a refund to another card or account; locked out or hacked; close or transfer the account.
 * 3. offer_callback: the customer asks for a call or a person; or is frustrated or confused and writes at
 *    length or says they have asked before; or says so twice ("the fourth time", "I keep getting passed around").
 * 4. send_article: a how-to question (how do I, where can I, is there a way to).
 * 5. reply: none of the above.
 */

const ESCALATE: CueSpec[] = [
  { cue: 'lawyer|lawyers|solicitor|solicitors|attorney', means: 'mentions legal action' },
  { cue: 'legal action|proceedings', means: 'mentions legal action' },
  { cue: 'sue|suing', means: 'mentions legal action' },
  { cue: 'ombudsman|regulator', means: 'names a regulator' },
  { cue: 'trading standards', means: 'names a regulator' },
  { cue: 'chargeback', means: 'threatens a chargeback' },
  { cue: 'report|reporting you', means: 'threatens to report the company' },
  { cue: 'formal complaint', means: 'a formal complaint' },
  { cue: 'complaints department|team|procedure|process', means: 'a formal complaint' },
  { cue: 'lodge|file|raise|make ~2 complaint', means: 'a formal complaint' },
  { cue: 'beyond a joke', means: 'anger' },
  { cue: 'speak|talk|get|want|need|see ~3 manager|supervisor|senior|superior', means: 'asks for a manager' },
  { cue: 'escalate|escalated|escalating', means: 'asks to escalate' },
  { cue: 'data protection', means: 'a data protection matter' },
];

const ANGER: CueSpec[] = [
  {
    cue: 'angry|furious|outrag*|livid|ridiculous|unacceptable|disgrace*|disgust*|appalling|fuming',
    means: 'anger',
  },
  { cue: 'fed up', means: 'anger' },
  { cue: 'sick of', means: 'anger' },
];
const INTENSIFIERS = new Set(['so', 'very', 'really', 'absolutely', 'extremely', 'beyond', 'totally', 'utterly']);

const ASK_FOR_ID: CueSpec[] = [
  {
    cue: 'change|update|correct|amend|edit|changing|updating ~3 email|e-mail|address|phone|number|mobile|name|surname|bank|card|password|registered|details',
    means: 'asks to change account details',
  },
  {
    cue: 'refund|refunds|money|pay|paid|send ~5 different|another|other|new|husbands|wifes|partners|someone|sons|daughters card|account|bank',
    means: 'asks for money to go to another card or account',
  },
  { cue: 'locked out', means: 'cannot get into the account' },
  {
    cue: 'cant|cannot|unable|couldnt to? log|sign|get in|into|on|back',
    negatable: false,
    means: 'cannot get into the account',
  },
  { cue: 'get back into|in', means: 'cannot get into the account' },
  { cue: 'no longer have access', negatable: false, means: 'cannot get into the account' },
  { cue: 'hacked|compromised|hijacked', means: 'the account may be in other hands' },
  { cue: 'taken over', means: 'the account may be in other hands' },
  {
    cue: 'cant|cannot|unable|couldnt to? access ~2 account|profile',
    negatable: false,
    means: 'cannot get into the account',
  },
  { cue: 'someone|somebody ~3 into|accessed|used ~2 account', means: 'the account may be in other hands' },
  { cue: 'close|delete|deactivate|remove my|the|our account', means: 'asks to close the account' },
  { cue: 'transfer ~3 ownership|account|workspace', means: 'asks to transfer the account' },
  { cue: 'remove ~4 from ~3 account', means: 'asks to remove someone from the account' },
  { cue: 'joint account', means: 'a shared account' },
  { cue: 'what|which ~5 on file', means: 'asks for details held on the account' },
  { cue: 'registered under|to|with', means: 'asks for details held on the account' },
  { cue: 'lost my phone', means: 'lost their second factor' },
];

const CALLBACK: CueSpec[] = [
  { cue: 'call|ring|phone me|us', means: 'asks for a call' },
  { cue: 'call|ring back', means: 'asks for a call' },
  { cue: 'callback', means: 'asks for a call' },
  { cue: 'give ~2 call|ring', means: 'asks for a call' },
  { cue: 'phone call', means: 'asks for a call' },
  { cue: 'talk|speak to ~2 person|human|someone|somebody|agent', means: 'asks for a person' },
];

const REPEATED: CueSpec[] = [
  { cue: 'second|third|fourth|fifth|sixth|2nd|3rd|4th|5th time', means: 'has asked before' },
  { cue: 'two|three|four|five|several|many|multiple|_ times', means: 'has asked before' },
  { cue: 'again', means: 'has asked before' },
  { cue: 'already ~2 told|asked|called|emailed|explained|sent|reported|contacted', means: 'has asked before' },
  { cue: 'keep|keeps getting|asking|telling|sending|calling|chasing|emailing|being', means: 'has asked before' },
  { cue: 'passed around', means: 'has been passed around' },
  { cue: 'in circles', means: 'has been going in circles' },
  { cue: 'losing patience', means: 'is losing patience' },
  { cue: 'last ~2 emails|messages|calls', means: 'has asked before' },
  { cue: 'no answer|reply|response', means: 'got no answer' },
];

const HOW_TO: CueSpec[] = [
  { cue: 'how do|can|should|would|could i|we', means: 'asks how to do something' },
  { cue: 'how i|we can|do|should|could', means: 'asks how to do something' },
  { cue: 'how to', means: 'asks how to do something' },
  { cue: 'where can|do|should i|we', means: 'asks where to find something' },
  { cue: 'is there a|an way|option|setting', means: 'asks how to do something' },
  { cue: 'what are the steps', means: 'asks how to do something' },
  { cue: 'how does ~3 work', means: 'asks how something works' },
];

const lex = {
  escalate: compileLexicon(ESCALATE),
  anger: compileLexicon(ANGER),
  id: compileLexicon(ASK_FOR_ID),
  callback: compileLexicon(CALLBACK),
  repeated: compileLexicon(REPEATED),
  howTo: compileLexicon(HOW_TO),
};

/** A message this long is one an agent would rather talk through. */
export const LONG_MESSAGE_WORDS = 60;

type Reading = AiAnalysis['next_action'];
const action = (value: NextAction, confidence: number, cues: AiCue[]): Reading => ({ value, confidence, cues });

export function readNextAction(
  s: Sentences,
  text: string,
  emotions: Record<string, number>,
  scam: AiAnalysis['scam'],
): Reading {
  if (scam.value)
    return action('escalate', scam.confidence, [
      { cue: scam.value, means: 'a possible scam: check before acting' },
      ...scam.cues,
    ]);

  const escalate = findCues(s, lex.escalate);
  const anger = findCues(s, lex.anger);
  const threat = emotions.threat ?? 0;
  const shouting = /\b[A-Z]{4,}\b/.test(text) || text.includes('!!');
  const intensified = anger.some((h) => INTENSIFIERS.has(s.list[h.sentence]![h.start - 1] ?? ''));
  const strongAnger = anger.length >= 2 || (anger.length === 1 && (intensified || shouting));
  if (escalate.length > 0 || strongAnger || threat > 0) {
    const cues = cuesOf(escalate);
    if (strongAnger) cues.push({ cue: anger.map((h) => h.text).join(', '), means: 'strong anger' });
    if (threat > 0 && escalate.length === 0) cues.push({ cue: 'threat', means: 'the emotion reader found a threat' });
    return action('escalate', confidenceOf(escalate.length + (strongAnger ? 1 : 0) + (threat > 0 ? 0.5 : 0)), cues);
  }

  const id = findCues(s, lex.id);
  if (id.length > 0) return action('ask_for_id', confidenceOf(scoreOf(id) + 0.5), cuesOf(id));

  const callback = findCues(s, lex.callback);
  if (callback.length > 0) return action('offer_callback', confidenceOf(scoreOf(callback) + 0.5), cuesOf(callback));
  const repeated = findCues(s, lex.repeated);
  const upset = (emotions.frustration ?? 0) + (emotions.confusion ?? 0);
  const long = s.count >= LONG_MESSAGE_WORDS;
  if ((upset > 0 && (long || repeated.length > 0)) || repeated.length >= 2) {
    const cues = cuesOf(repeated);
    const named = ['frustration', 'confusion'].filter((e) => (emotions[e] ?? 0) > 0);
    if (named.length > 0) cues.unshift({ cue: named.join(', '), means: 'the customer is struggling' });
    if (long) cues.push({ cue: `${s.count} words`, means: 'a long message, easier talked through' });
    return action('offer_callback', confidenceOf(cues.length), cues);
  }

  const howTo = findCues(s, lex.howTo);
  if (howTo.length > 0) return action('send_article', confidenceOf(scoreOf(howTo) + 0.5), cuesOf(howTo));

  return action('reply', 1, []);
}
