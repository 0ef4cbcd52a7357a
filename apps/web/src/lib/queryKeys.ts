/**
 * Every TanStack Query key of the web app, in one place: two features that read or write the same server
 * state (the announcement, a ticket's labels, the live chat badge) name it the same way, and a prefix
 * (`ticketKeys.all`, `chatKeys.all`) reaches every key under it. Keys are arrays whose first element is the
 * area; nothing else in the app spells a key.
 */

export const ticketKeys = {
  all: ['tickets'] as const,
  /** A page set of the ticket list under one set of filters (the filters object is part of the key). */
  list: <F extends object>(f: F) => ['tickets', 'list', f] as const,
  tab: (tab: string, status: string, id: number) => ['tickets', tab, status, id] as const,
  kanbanAll: ['tickets', 'kanban'] as const,
  kanban: (status: string) => ['tickets', 'kanban', status] as const,
  /** Whether the account has any ticket at all (outside `all`, so the board never counts it as a column). */
  kanbanTotal: ['kanbanTotal'] as const,
  info: (id: number) => ['ticketInfo', id] as const,
  unread: ['ticketUnread'] as const,
  settings: ['ticketSettings'] as const,
  campaigns: (page: number) => campaignKeys.list(page),
  autoAssign: ['ticketAutoAssign'] as const,
  statuses: ['ticketStatuses'] as const,
  /** The counts of the list's views (Mine, Unassigned, All) under a status filter; `viewsAll` reaches every filter's. */
  viewsAll: ['ticketViews'] as const,
  views: (status: string) => ['ticketViews', status] as const,
  /** A ticket's own notes in its side panel. */
  notes: (ticketId: number) => ['ticketNotes', ticketId] as const,
  /** Home's My queue: my open and waiting counts and my tickets whose SLA is at risk. */
  queue: ['ticketQueue'] as const,
};

export const conversationKeys = {
  all: ['conversation'] as const,
  one: (ticketId: number) => ['conversation', ticketId] as const,
  /** AI-03: the hint for one message (0: none asked). */
  aiHint: (messageId: number) => ['ai-hint', messageId] as const,
  /** AI-08: classification and what to say for one message. */
  aiRecommendation: (messageId: number) => ['ai-recommendation', messageId] as const,
};

export const liveChatKeys = {
  queue: ['livechat', 'queue'] as const,
  list: ['livechat', 'list'] as const,
  unread: ['livechat', 'unread'] as const,
  /** Settings -> Live chat: the embed token and automatic offering. */
  settings: ['livechat', 'settings'] as const,
  /** Who the visitor of a live chat is. */
  visitor: (ticketId: number) => ['livechatVisitor', ticketId] as const,
};

export const chatKeys = {
  all: ['chat'] as const,
  list: (pages: number) => ['chat', 'list', pages] as const,
  one: (id: number) => ['chat', 'one', id] as const,
  team: ['chat', 'team'] as const,
};

export const labelKeys = {
  /** The account's labels (Settings' card and the ticket panel's picker read the same list). */
  list: ['labels', 'list'] as const,
  settings: ['labels', 'settings'] as const,
};

export const statusKeys = {
  me: ['status', 'me'] as const,
  online: ['status', 'online'] as const,
  custom: ['status', 'custom'] as const,
};

export const profileKeys = {
  person: (username: string, offset: number) => ['profile', 'person', username, offset] as const,
  contact: (ticketId: number, offset: number) => ['profile', 'contact', ticketId, offset] as const,
  list: (type: string, username: string, offset: number) => ['profile', 'list', type, username, offset] as const,
};

export const replyKeys = {
  all: ['replies'] as const,
  /** The canned replies offered on one channel ('' : every one the user may use). */
  canned: (channel = '') => ['replies', 'canned', channel] as const,
  macros: ['replies', 'macros'] as const,
  /** The account's users, for a macro's assignees. */
  users: ['replies', 'users'] as const,
};

/** Automation rules (admins): the rules, their run log, and what they pick from. */
export const automationKeys = {
  all: ['automation'] as const,
  rules: ['automation', 'rules'] as const,
  runs: ['automation', 'runs'] as const,
  canned: ['automation', 'canned'] as const,
  /** The account's webhooks, for the "Call a webhook" action. */
  webhooks: ['automation', 'webhooks'] as const,
};

export const slaKeys = {
  settings: ['sla', 'settings'] as const,
  /** A ticket's SLA under its policy; `version` (the ticket's updated_at) asks again when the ticket changes. */
  ticket: (id: number, version: number) => ['sla', 'ticket', id, version] as const,
};

/** Settings -> Mailboxes: the account's mailboxes with the plan's limit and whether the server can seal passwords. */
export const mailboxKeys = {
  list: ['mailboxes', 'list'] as const,
};

/** Scheduled messages of a ticket, still to go. */
export const scheduledKeys = {
  ticket: (ticketId: number) => ['scheduled', ticketId] as const,
};

/** The `/sms` screen's conversations. */
export const smsKeys = {
  threads: ['sms', 'threads'] as const,
};

export const channelKeys = {
  /** Settings -> Channels: the account's connections and the kinds its plan allows. */
  list: ['channels', 'list'] as const,
  /** Whether WhatsApp's 24-hour window of a ticket is open. */
  window: (ticketId: number) => ['channels', 'window', ticketId] as const,
  /** Settings -> Channels: the replies that could not be sent, pages back by message id. */
  failed: ['channels', 'failed'] as const,
};

export const settingsKeys = {
  sessions: ['settings', 'sessions'] as const,
  users: ['settings', 'users'] as const,
  audit: (page: number) => ['settings', 'audit', page] as const,
};

export const authKeys = {
  setup: ['auth', 'setup'] as const,
};

/** SHELL-37: the announcement that shows now (the shell's banner and Settings' card). */
export const announcementKey = ['announcement'] as const;
export const departmentsKey = ['departments'] as const;
export const servicesKey = ['services'] as const;
/** The account's call server (Call Configurations). */
export const callConfigKey = ['callConfig'] as const;
/** The call list and a call's detail (CALL-29), the DID look-up (CALL-35) and the recordings (REC). */
export const callKeys = {
  all: ['calls'] as const,
  list: (query: string, offset: number) => ['calls', 'list', query, offset] as const,
  detail: (id: number) => ['calls', 'detail', id] as const,
  did: (did: string) => ['calls', 'did', did] as const,
  recordings: (query: string) => ['calls', 'recordings', query] as const,
};

export const searchKeys = {
  all: ['search'] as const,
  /** One page set of the global search: what was entered and the two 0-based pages. */
  results: (text: string, page: number, messagePage: number) => ['search', text, page, messagePage] as const,
};

export const supervisoryKeys = {
  /** The supervisory board's snapshot (agents, queue, SLA risks), read again on the socket events that change it. */
  board: ['supervisory'] as const,
};

export const reportKeys = {
  all: ['reports'] as const,
  /** The ticket summary's pages under one type, status and range (the filter object is part of the key). */
  summary: <F extends object>(f: F) => ['reports', 'summary', f] as const,
  /** One part of the omnichannel report (interval, aux, csat, performance) over one range (and step). */
  omni: <F extends object>(part: string, f: F) => ['reports', 'omni', part, f] as const,
  /** The analytics frame's address for one feature and scheme (it carries a short-lived token). */
  analytics: (feature: string, dark: boolean) => ['reports', 'analytics', feature, dark] as const,
  /** The account's public dashboard links. */
  dashboards: ['reports', 'dashboards'] as const,
  /** A public dashboard's figures by its link's secret. */
  publicDashboard: (token: string) => ['public-dashboard', token] as const,
};

export const contactKeys = {
  all: ['contacts'] as const,
  /** A page of the contact list under one search, filter and page size. */
  list: <F extends object>(f: F) => ['contacts', 'list', f] as const,
  one: (id: number) => ['contacts', 'one', id] as const,
  analysis: (days: number) => ['contacts', 'analysis', days] as const,
};

export const formKeys = {
  all: ['forms'] as const,
  /** A tab's page (0-based index) of entries; the Main tab's id is its form's. */
  tab: (id: number, index: number) => ['forms', 'tab', id, index] as const,
  main: ['forms', 'main'] as const,
  settings: ['forms', 'settings'] as const,
  /** A public form by its token (the new-ticket page, signed out). */
  public: (token: string) => ['publicForm', token] as const,
};

export const kbKeys = {
  all: ['kb'] as const,
  /** The editor's list: collection, language, status and search. */
  list: <F extends object>(f: F) => ['kb', 'list', f] as const,
  article: (id: number) => ['kb', 'article', id] as const,
  categories: (type: string, lang: string) => ['kb', 'categories', type, lang] as const,
  site: ['kb', 'site'] as const,
  /** The popup's search of published articles. */
  search: (q: string) => ['kb', 'search', q] as const,
  /** The public pages, by token. */
  publicIndex: (token: string, type: string, lang: string, q: string) =>
    ['kb', 'public', token, type, lang, q] as const,
  publicArticle: (token: string, type: string, lang: string, id: string) =>
    ['kb', 'public', token, type, lang, id] as const,
};

export const surveyKeys = {
  /** A survey by its token (the customer's page, signed out). */
  public: (token: string) => ['publicSurvey', token] as const,
};

export const calendarKeys = {
  all: ['calendar'] as const,
  /** The items of a range of days, optionally one contact's. */
  range: (from: string, to: string, contact: number | null) => ['calendar', 'range', from, to, contact] as const,
  event: (id: number) => ['calendar', 'event', id] as const,
  feed: ['calendar', 'feed'] as const,
};

export const caseKeys = {
  all: ['cases'] as const,
  list: (stage: string, mine: boolean, q: string) => ['cases', 'list', stage, mine, q] as const,
  one: (id: number) => ['cases', 'one', id] as const,
  team: ['cases', 'team'] as const,
};

export const billingKeys = {
  pricing: ['billing', 'pricing'] as const,
  /** One 1-based page of the account's payments. */
  history: (page: number) => ['billing', 'history', page] as const,
  /** The running subscription (users, renewal, cancellation). */
  subscription: ['billing', 'subscription'] as const,
};

/** Campaigns: a page of the list (the filter panel's picker reads the same), one campaign, its tickets. */
export const campaignKeys = {
  all: ['campaigns'] as const,
  list: (page: number) => ['campaigns', page] as const,
  one: (id: number) => ['campaigns', 'one', id] as const,
  tickets: (id: number) => ['campaigns', 'tickets', id] as const,
};

export const integrationKeys = {
  /** Settings -> API and webhooks: the caller's API tokens (an admin's include the account's). */
  tokens: ['integrations', 'tokens'] as const,
  webhooks: ['integrations', 'webhooks'] as const,
  /** One webhook's delivery log. */
  deliveries: (webhookId: number) => ['integrations', 'deliveries', webhookId] as const,
};

/** Settings -> AI: the account's engine, language model and translator. */
export const aiSettingsKey = ['ai', 'settings'] as const;
export const retentionKeys = {
  /** Settings -> Data retention: the rules, the preview of the next run, the last runs. */
  all: ['retention'] as const,
  rules: ['retention', 'rules'] as const,
  preview: ['retention', 'preview'] as const,
  runs: ['retention', 'runs'] as const,
};

/** Time tracking: a ticket's time (the info panel's "Time"), the team's time over a range (`/timer`). */
export const timerKeys = {
  all: ['timer'] as const,
  ticket: (id: number) => ['timer', 'ticket', id] as const,
  range: (from: string, to: string, userId: number | null) => ['timer', 'range', from, to, userId] as const,
};
export const interactionKeys = {
  all: ['interactions'] as const,
  /** The timeline's pages under one set of filters (the filter object is part of the key). */
  list: <F extends object>(f: F) => ['interactions', f] as const,
};
/** Settings -> Encryption: the account's published keys (CRYPT-02). */
export const encryptionKeysKey = ['encryption', 'keys'] as const;
