/** The status module's own messages (the contract's refinements carry the rest). */
export const STATUS_STRINGS = {
  reasonRequired: 'A reason is required for Away and Busy.',
  customReasonRequired: (name: string) => `A reason is required for ${name}.`,
  unknownStatus: 'There is no such status.',
  offlineNotChosen: 'Offline follows your connection; it cannot be chosen.',
  builtInName: 'That name is a built-in status.',
  duplicateName: 'A custom status with that name already exists.',
  noSuchCustomStatus: 'There is no such custom status.',
} as const;
