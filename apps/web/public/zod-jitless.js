// Runs before the app's modules. Building a schema makes zod probe `Function('')` to decide whether to
// compile its checks; the Content-Security-Policy (no 'unsafe-eval') blocks that and reports a violation on
// every page load. With the compiler off there is no probe; checks run the same, interpreted. zod reads its
// settings from this global when it loads, so it must be set first, outside the bundle.
globalThis.__zod_globalConfig = Object.assign(globalThis.__zod_globalConfig || {}, { jitless: true });
