/** The build's version (root package.json), compared with the server's to offer the update bar. */
declare const __APP_VERSION__: string;
