import type { AgentStatus } from '@parley/contracts';

export const statusLabel: Record<AgentStatus, string> = {
  ONLINE: 'Online',
  AWAY: 'Away',
  BUSY: 'Busy',
  MEAL_BREAK: 'Meal Break',
  WASHROOM: 'Washroom',
  PRAYER: 'Prayer',
  OFFLINE: 'Offline',
};

export const statusColor: Record<AgentStatus, string> = {
  ONLINE: 'green',
  AWAY: 'yellow',
  BUSY: 'red',
  MEAL_BREAK: 'orange',
  WASHROOM: 'cyan',
  PRAYER: 'grape',
  OFFLINE: 'gray',
};

export const t = {
  myStatus: 'My Status',
  reason: 'Reason',
  reasonHint: 'Your status duration will be recorded',
  update: 'Update',
  teamActivity: 'Team activity',
  noActivity: 'Status changes of your team appear here as they happen.',
};
