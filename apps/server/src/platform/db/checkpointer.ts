import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * SQLite in WAL mode copies the log back into the database file (a checkpoint, with fsyncs) inside whichever
 * commit crosses `wal_autocheckpoint` (1,000 pages by default): with the server's one connection that is the
 * event loop, stalled 16 ms on average (up to 36 ms) every ~140 ms under 50 busy senders. Here one worker
 * thread per process holds a connection of its own to each open SQLite file and checkpoints it every
 * CHECKPOINT_EVERY_MS (PASSIVE: it never waits for, nor blocks, the writer).
 *
 * The log starts over from its beginning only when a transaction begins with every page of it copied; under
 * steady writes the worker never quite catches the last commit, so the server's connection keeps
 * `wal_autocheckpoint` at FALLBACK_AUTOCHECKPOINT_PAGES: every ~20 MB of log it checkpoints itself, finds
 * nearly everything copied already (a few ms), and the log starts over. That is also the bound should the
 * worker stop.
 */
const CHECKPOINT_EVERY_MS = 200;

/** A checkpoint the server's own connection still runs past this many WAL pages (about 20 MB). */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 5_000;

// Plain CommonJS, evaluated in the worker: the same code whether the server runs from TypeScript or a build.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const open = new Map();
parentPort.on('message', (m) => {
  if (m.add) {
    const known = open.get(m.add);
    if (known) known.users++;
    else {
      try {
        open.set(m.add, { db: new Database(m.add), users: 1 });
      } catch {}
    }
  }
  if (m.remove) {
    const known = open.get(m.remove);
    if (known && --known.users === 0) {
      open.delete(m.remove);
      try { known.db.close(); } catch {}
    }
    parentPort.postMessage({ removed: m.remove, id: m.id });
  }
});
setInterval(() => {
  for (const { db } of open.values()) {
    try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
  }
}, workerData.everyMs);
`;

let worker: Worker | null = null;
let files = 0;
let nextId = 0;
/** Removals the worker has yet to confirm, by id. */
const removing = new Map<number, () => void>();

/** Starts checkpointing `file` in the background; the returned function stops it (before the file closes). */
export function checkpointInBackground(file: string): () => Promise<void> {
  if (!worker) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, everyMs: CHECKPOINT_EVERY_MS } });
    // The process may end with files open: the log is durable and the next open checkpoints it.
    worker.unref();
    worker.on('error', () => {});
    worker.on('message', (m: { id?: number }) => {
      if (m.id === undefined) return;
      removing.get(m.id)?.();
      removing.delete(m.id);
    });
  }
  const w = worker;
  files++;
  w.postMessage({ add: file });
  let stopped = false;
  return async () => {
    if (stopped) return;
    stopped = true;
    const id = nextId++;
    // The worker closes its connection first, so that the server's close (the last one) can remove the log.
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        removing.delete(id);
        resolve();
      }, 2_000);
      removing.set(id, () => {
        clearTimeout(t);
        resolve();
      });
      w.postMessage({ remove: file, id });
    });
    if (--files === 0 && worker === w) {
      worker = null;
      await w.terminate();
    }
  };
}
