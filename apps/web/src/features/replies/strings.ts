import { REPLY_STRINGS } from '@parley/contracts';
import { MACRO_FIELD_STRINGS } from '../../ui/MacroActionFields';

/** The words of the canned replies and macros screens, in one place (beyond the spec: our own). */
export const R = {
  ...REPLY_STRINGS,
  ...MACRO_FIELD_STRINGS,
  runFailed: 'Macro not run',
  newCanned: 'New canned reply',
  editCanned: 'Edit canned reply',
  newMacro: 'New macro',
  editMacro: 'Edit macro',
  title: 'Title',
  shortcut: 'Shortcut',
  shortcutHint: 'Type / and the shortcut in a reply to insert it.',
  variables: 'Variables (click to insert)',
  channels: 'Offered on',
  allChannels: 'All channels',
  shared: 'Shared with the whole team',
  sharedBadge: 'Shared',
  personalBadge: 'Personal',
  search: 'Search',
  save: 'Save',
  cancel: 'Cancel',
  edit: 'Edit',
  delete: 'Delete',
  deleted: 'Deleted.',
  saved: 'Saved.',
  emptyCanned: 'No canned replies yet. Create one, then type / in a reply to use it.',
  emptyMacros: 'No macros yet.',
  name: 'Name',
  actions: 'Actions',
  addAction: 'Add action',
  removeAction: 'Remove action',
  cannedIntro:
    'Your own replies and the shared ones. Variables are written in double braces and filled from the open ticket when inserted.',
  macrosIntro:
    'A macro does several things to a ticket in one click. Everyone can run them from a ticket; each run can be undone by whoever ran it, until they run another.',
  pickerHint: 'Up and Down to choose, Enter to insert, Esc to close',
  undoFailed: 'Could not undo',
  run: 'Run',
} as const;
