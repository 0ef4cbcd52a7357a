/** The calendar: events, holidays and appointments; each user's private iCalendar feed (see docs/calendar.md). */

/** HTTP routes of the module (the feed is public, by its token). */
export { calendarRoutes } from './calendar.routes.js';
