import pino from 'pino';
import { createParley, type Parley } from '../app.js';
import { freshPostgres, redisUrl, tempDir, testConfig } from './support.js';

/** Two or more in-process nodes on one fresh Postgres database and the test Redis, each listening. */
export interface Cluster {
  nodes: Parley[];
  urls: string[];
  /** Closes every node, then drops the database. */
  stop(): Promise<void>;
}

export async function startCluster(names: string[]): Promise<Cluster> {
  const pgdb = await freshPostgres();
  const nodes: Parley[] = [];
  const urls: string[] = [];
  for (const name of names) {
    const p = await createParley(
      testConfig({ DATABASE_URL: pgdb.url, DATA_DIR: tempDir(), REDIS_URL: redisUrl, NODE_ID: name }),
      { logger: pino({ level: 'silent' }) },
    );
    nodes.push(p);
    urls.push(`http://127.0.0.1:${await p.listen()}`);
  }
  return {
    nodes,
    urls,
    async stop() {
      for (const n of nodes) await n.close();
      await pgdb.drop();
    },
  };
}
