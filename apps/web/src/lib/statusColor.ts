/** The colour of each built-in agent status (the status menu, the online list, the supervisory board...). */
export const statusColor: Record<string, string> = {
  ONLINE: 'green',
  AWAY: 'yellow',
  BUSY: 'red',
  MEAL_BREAK: 'orange',
  WASHROOM: 'cyan',
  PRAYER: 'grape',
  OFFLINE: 'gray',
};
/** Custom statuses share one colour. */
export const colorOf = (status: string) => statusColor[status] ?? 'violet';
