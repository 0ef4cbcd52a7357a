import { createParley } from './app.js';
import { ConfigError, loadConfig } from './platform/config.js';

/** `npm start`: one process serving the API, the realtime socket and the web app. */
async function main() {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const parley = await createParley(config);
  const log = parley.app.log;
  const port = await parley.listen();
  log.info(
    {
      port,
      database: parley.handle.dialect,
      where: parley.handle.where,
      redis: Boolean(config.REDIS_URL),
      node: parley.nodeId,
    },
    `Parley is listening on http://localhost:${port}`,
  );
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    await parley.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
  process.stderr.write(`Parley failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
