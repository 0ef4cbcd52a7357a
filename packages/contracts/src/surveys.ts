import { z } from 'zod';

/**
 * Satisfaction surveys (see docs/forms.md, "Surveys"): an agent makes a ticket's survey link
 * (`/survey/{token}`, one per ticket) and sends it to the customer; the customer rates the help 1 to 5 with
 * an optional comment, once. The rating is the ticket's CSAT in the reports, as a live chat's rating is.
 */
export const SURVEY_RATINGS = [1, 2, 3, 4, 5] as const;
export const SURVEY_RATING_WORDS: Record<number, string> = {
  1: 'Very poor',
  2: 'Poor',
  3: 'Okay',
  4: 'Good',
  5: 'Excellent',
};
export const SURVEY_COMMENT_MAX = 2000;

export const SURVEY_STRINGS = {
  question: (n: number) => `How did we do with your request #${n}?`,
  comment: 'Anything you would like to tell us? (optional)',
  send: 'Send',
  thanks: 'Thank you! Your answer helps us get better.',
  answered: 'This survey was answered already. Thank you!',
  notFound: 'This survey link is not valid.',
  pickRating: 'Pick a rating from 1 to 5.',
  tooMany: 'Too many answers from your network. Please try again later.',
  notOnPlan: 'Surveys come with the Basic plan and up: upgrade on the Plans page.',
  link: 'Survey link',
  copied: 'Survey link copied. Paste it into your reply.',
  rated: (r: number) => `Rated ${r} of 5`,
} as const;

export const SurveyLinkAnswer = z.object({ result: z.literal('success'), token: z.string() });
export const PublicSurveyAnswer = z.object({
  result: z.literal('success'),
  company: z.string(),
  ticket_number: z.number(),
  title: z.string(),
  rating: z.number().nullable(),
});
export type PublicSurveyAnswer = z.infer<typeof PublicSurveyAnswer>;
export const SurveyAnswerBody = z.object({
  rating: z.number().int().min(1, SURVEY_STRINGS.pickRating).max(5, SURVEY_STRINGS.pickRating),
  comment: z.string().trim().max(SURVEY_COMMENT_MAX).default(''),
});
