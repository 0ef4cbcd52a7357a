/** The announcements module's own messages (the contract's refinements carry the rest). */
export const ANNOUNCEMENT_STRINGS = {
  expiryPast: 'The expiry time has already passed.',
} as const;
