import type { AiAnalysis, AiCue, Personality } from '@parley/contracts';
import { type CueSpec, compileLexicon, confidenceOf, cuesOf, findCues, type Sentences, scoreOf } from './match.js';

/**
 * Personality: the writing style of a message, so an agent can answer in kind. Each style has a score and a
 * threshold; the style furthest past its threshold wins (a tie goes to the earlier in PERSONALITY_ORDER), and
 * no style past its threshold is null.
 * - formal: letter conventions (Dear Sir, I am writing to, kindly, yours sincerely), no contractions;
 * - friendly: warm greetings and sign-offs, thanks, emoji and emoticons, exclamation marks;
 * - anxious: worry words, pleading, "what if", doubled question marks;
 * - detailed: a long message with figures, dates, references or steps;
 * - direct: a short message without courtesies that opens with an order or is made of fragments.
 */

const FORMAL: CueSpec[] = [
  { cue: 'dear sir|sirs|madam|team|mr|ms|mrs|dr|colleagues|customer|all', weight: 1.5, means: 'a letter greeting' },
  { cue: 'to whom it may concern', weight: 2, means: 'a letter greeting' },
  { cue: 'i|we am|are writing', weight: 1.5, means: 'a letter opening' },
  { cue: 'kindly', means: 'formal wording' },
  { cue: 'please find|note', means: 'formal wording' },
  { cue: 'please be advised', means: 'formal wording' },
  { cue: 'please advise|confirm', weight: 0.5, means: 'formal wording' },
  { cue: 'yours sincerely|faithfully|truly', weight: 2, means: 'a letter sign-off' },
  { cue: 'sincerely', means: 'a letter sign-off' },
  { cue: 'kind|best|warm regards', means: 'a letter sign-off' },
  { cue: 'regards', means: 'a letter sign-off' },
  { cue: 'i|we would|should be most? grateful', weight: 1.5, means: 'formal courtesy' },
  { cue: 'i|we would appreciate', means: 'formal courtesy' },
  { cue: 'at your earliest convenience', weight: 1.5, means: 'formal courtesy' },
  { cue: 'further to', means: 'formal wording' },
  { cue: 'with reference|regard|regards to', means: 'formal wording' },
  { cue: 'i|we wish to', means: 'formal wording' },
  { cue: 'hereby', means: 'formal wording' },
  { cue: 'thank you in advance', weight: 0.5, means: 'formal courtesy' },
  { cue: 'i|we look forward to', means: 'formal courtesy' },
  { cue: 'good morning|afternoon|evening', weight: 0.5, means: 'a formal greeting' },
  { cue: 'revert|accordingly|correspondence', weight: 0.5, means: 'formal wording' },
  { cue: 'prompt response|reply', weight: 0.5, means: 'formal courtesy' },
];

const FRIENDLY: CueSpec[] = [
  { cue: 'hi|hello there|all|guys|lovely|everyone', means: 'a warm greeting' },
  { cue: 'hey|hiya|heya|howdy', means: 'a casual greeting' },
  { cue: 'cheers', means: 'a casual sign-off' },
  { cue: 'thanks|thank you? so|sooo|soo|very|a|again much|lot|million?', means: 'warm thanks' },
  { cue: 'you guys|lot', means: 'casual wording' },
  { cue: 'love|loving|lovely', means: 'warm wording' },
  { cue: 'big fan', means: 'warm wording' },
  { cue: 'awesome|brilliant|amazing|fantastic|wonderful|great|best', weight: 0.5, means: 'warm wording' },
  { cue: 'have a great|good|lovely|nice day|weekend|evening|one', means: 'a warm sign-off' },
  { cue: 'hope you|youre|you are|all|everyone well|good|ok', means: 'a warm greeting' },
  { cue: 'hope you had', means: 'a warm greeting' },
  { cue: 'haha|hahaha|lol|lmao|xx', means: 'casual wording' },
  { cue: 'no worries', means: 'casual wording' },
  { cue: 'morning', weight: 0.5, means: 'a casual greeting' },
];

const ANXIOUS: CueSpec[] = [
  {
    cue: 'worried|worry|worrying|scared|afraid|nervous|anxious|panic*|terrified|frightened|stressed|desperate|distressed',
    weight: 1.5,
    means: 'says they are worried',
  },
  { cue: 'freaking out', weight: 1.5, means: 'says they are worried' },
  { cue: 'please please', means: 'pleads' },
  { cue: 'what if', means: 'fears what could happen' },
  { cue: 'what happens if', means: 'fears what could happen' },
  { cue: 'what do|should i do', means: 'does not know what to do' },
  { cue: 'is my money|account|data|card|order safe', means: 'fears for their money or data' },
  { cue: 'am i still|going', means: 'fears what could happen' },
  { cue: 'get|be|go|gets lost', weight: 0.5, means: 'fears a loss' },
  { cue: 'really need', weight: 0.5, means: 'presses' },
  { cue: 'asap|urgent*', weight: 0.5, means: 'presses' },
  { cue: 'sorry to bother', weight: 0.5, means: 'apologetic' },
];

const lex = { formal: compileLexicon(FORMAL), friendly: compileLexicon(FRIENDLY), anxious: compileLexicon(ANXIOUS) };

/** Order of preference when two styles score alike. */
export const PERSONALITY_ORDER: Personality[] = ['formal', 'anxious', 'friendly', 'detailed', 'direct'];
const THRESHOLD: Record<Personality, number> = { formal: 2, anxious: 1.5, friendly: 2, detailed: 2, direct: 2 };

const IMPERATIVES = new Set(
  'cancel refund send fix stop change resend remove add delete sort give tell need want call ring update reissue email check return close confirm move ship transfer unsubscribe explain escalate'.split(
    ' ',
  ),
);
const COURTESIES = new Set(
  'please pls plz thanks thank thx cheers hi hello hey hiya dear sorry could would kindly morning afternoon'.split(' '),
);
const PRONOUNS = new Set('i im ive id we were weve you u your youre my our me us'.split(' '));
const OPENERS = new Set('the a an this that is are do does what when where why how can will'.split(' '));

const EMOJI = /\p{Extended_Pictographic}/u;
const EMOTICON = /(^|\s)[:;]-?[)D(pP]/;
const CONTRACTION = /\b[a-z]+['’](s|t|re|ve|ll|d|m)\b/i;

interface Scored {
  score: number;
  cues: AiCue[];
}

function direct(s: Sentences, text: string): Scored {
  if (s.count === 0 || s.count > 12) return { score: 0, cues: [] };
  const all = s.list.flat();
  if (all.some((w) => COURTESIES.has(w))) return { score: 0, cues: [] };
  // "Just tell me...": an adverb before the order.
  const first = (all[0] === 'just' ? all[1] : all[0]) ?? '';
  if (IMPERATIVES.has(first)) return { score: 2, cues: [{ cue: first, means: 'opens with an order, no courtesies' }] };
  const exclaims = text.includes('!');
  if (s.list.length >= 2 && s.list.every((ws) => ws.length <= 5) && !text.includes('?') && !exclaims)
    return { score: 2, cues: [{ cue: `${s.list.length} short sentences`, means: 'clipped fragments, no courtesies' }] };
  // One word ("ok", "hi") says nothing of a style.
  if (all.length >= 2 && all.length <= 6 && !exclaims && !OPENERS.has(first) && !all.some((w) => PRONOUNS.has(w)))
    return { score: 2, cues: [{ cue: all.join(' '), means: 'a bare fragment, no courtesies' }] };
  return { score: 0, cues: [] };
}

function detailed(s: Sentences, text: string): Scored {
  const n = s.count;
  if (n < 60) return { score: 0, cues: [] };
  const cues: AiCue[] = [{ cue: `${n} words`, means: 'a long message' }];
  let score = n >= 90 ? 1.5 : 1;
  let figures = 0;
  for (const ws of s.list) for (const w of ws) if (/\d/.test(w)) figures++;
  if (figures >= 3) {
    score += 1;
    cues.push({ cue: `${figures} figures`, means: 'gives numbers, dates or references' });
  }
  const steps = text.match(/\b(first|then|after that|secondly|finally|step)\b|(^|\s)\d[.)]\s/gi)?.length ?? 0;
  if (steps >= 2) {
    score += 0.5;
    cues.push({ cue: `${steps} steps`, means: 'sets out what happened in order' });
  }
  if (s.list.length >= 4) score += 0.5;
  return { score, cues };
}

export function readPersonality(s: Sentences, text: string): AiAnalysis['personality'] {
  const formalHits = findCues(s, lex.formal);
  const formal: Scored = { score: scoreOf(formalHits), cues: cuesOf(formalHits) };
  if (formal.score >= 1 && s.count >= 12 && !CONTRACTION.test(text)) {
    formal.score += 0.5;
    formal.cues.push({ cue: 'no contractions', means: 'careful, formal writing' });
  }
  const friendlyHits = findCues(s, lex.friendly);
  const friendly: Scored = { score: scoreOf(friendlyHits), cues: cuesOf(friendlyHits) };
  const emoji = EMOJI.exec(text)?.[0];
  if (emoji) {
    friendly.score += 1;
    friendly.cues.push({ cue: emoji, means: 'an emoji' });
  }
  const emoticon = EMOTICON.exec(text)?.[0]?.trim();
  if (emoticon) {
    friendly.score += 1;
    friendly.cues.push({ cue: emoticon, means: 'an emoticon' });
  }
  if (text.includes('!') && friendly.score > 0) friendly.score += 0.5;
  const anxiousHits = findCues(s, lex.anxious);
  const anxious: Scored = { score: scoreOf(anxiousHits), cues: cuesOf(anxiousHits) };
  const doubled = /\?\s*[?!]|help\s*!+/i.exec(text)?.[0];
  if (doubled) {
    anxious.score += 1;
    anxious.cues.push({ cue: doubled, means: 'insistent punctuation' });
  }
  const styles: Record<Personality, Scored> = {
    formal,
    anxious,
    friendly,
    detailed: detailed(s, text),
    direct: direct(s, text),
  };
  let best: Personality | null = null;
  let margin = 0;
  for (const p of PERSONALITY_ORDER) {
    const m = styles[p].score / THRESHOLD[p];
    if (m >= 1 && m > margin) {
      best = p;
      margin = m;
    }
  }
  if (!best) return { value: null, confidence: 1, cues: [] };
  return { value: best, confidence: confidenceOf(styles[best].score - THRESHOLD[best] + 1), cues: styles[best].cues };
}
