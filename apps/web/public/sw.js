/* Parley service worker: shows Web Push notifications and opens the app on a click. */
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('push', (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { title: 'Parley', body: event.data ? event.data.text() : '' };
  }
  const title = data.title || 'Parley';
  event.waitUntil(
    self.registration.showNotification(title, {
      body: data.body || '',
      // Pushes of a ticket or message carry their own tag (the web app's notification of a message uses the
      // same one, so a message shown by both is shown once); stored notifications are tagged by id.
      tag: data.tag || (data.id ? `parley-${data.id}` : undefined),
      data: { url: data.url || '/', category: data.category, type: data.type, kind: data.kind },
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = new URL(event.notification.data?.url || '/', self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((tabs) => {
      for (const tab of tabs) {
        if (new URL(tab.url).origin === self.location.origin && 'focus' in tab) {
          tab.navigate?.(url);
          return tab.focus();
        }
      }
      return self.clients.openWindow(url);
    }),
  );
});
