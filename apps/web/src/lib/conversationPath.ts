import { isLiveChatChannel, WORKSPACE_CHANNEL } from '@parley/contracts';

/** Where a conversation opens: its list's route by channel. */
export const conversationPath = (channel: string, ticketId: number) =>
  isLiveChatChannel(channel)
    ? `/livechat/${ticketId}`
    : channel === WORKSPACE_CHANNEL
      ? `/chat/${ticketId}`
      : `/ticket/${ticketId}`;
