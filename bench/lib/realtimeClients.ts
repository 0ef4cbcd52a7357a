/**
 * The socket side of bench/realtime.ts, run in a worker thread so that decoding N copies of every event
 * does not share the server's event loop. Also the message protocol between the two threads.
 */
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import type { StatusUpdated } from '@parley/contracts';
import { io as connect, type Socket } from 'socket.io-client';

/** One monotonic clock for both threads (process.hrtime is process-wide), in milliseconds. */
export const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

/** What every benchmark event carries: a status-like payload, its phase and index, and its send time. */
export type Payload = StatusUpdated & { phase: number; i: number; sentAt: number };

export type ToWorker =
  | { type: 'connect'; url: string; token: string; sockets: number }
  | { type: 'phase'; phase: number; n: number }
  | { type: 'report'; phase: number }
  | { type: 'close' };

export type FromWorker =
  | { type: 'connected' }
  | { type: 'ready'; phase: number }
  | { type: 'delivered'; phase: number; i: number; at: number }
  | { type: 'report'; phase: number; receipts: number; p50: number; p99: number; max: number; mean: number }
  | { type: 'closed' }
  | { type: 'error'; message: string };

/**
 * Starts this file in a worker thread. Node 20 does not pass tsx's loader on to workers, so the worker
 * entry registers it first, then imports this TypeScript file.
 */
export function startClientWorker(): Worker {
  const code =
    `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))};\n` +
    `register();\nawait import(${JSON.stringify(import.meta.url)});\n`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`));
}

/** Worker side: connects the sockets, counts receipts and records every receipt's latency. */
function runClients(): void {
  const port = parentPort!;
  const post = (m: FromWorker) => port.postMessage(m);
  let sockets: Socket[] = [];
  let phase = -1;
  let n = 0;
  let target = 0;
  let counts = new Uint32Array(0);
  let latencies = new Float64Array(0);
  let k = 0;
  let closing = false;

  const onEvent = (e: { seq: number; data: Payload }) => {
    const at = nowMs();
    const d = e.data;
    if (d.phase !== phase || d.i >= n) return;
    latencies[k++] = at - d.sentAt;
    counts[d.i] = (counts[d.i] ?? 0) + 1;
    if (counts[d.i] === target) post({ type: 'delivered', phase, i: d.i, at });
  };

  port.on('message', async (m: ToWorker) => {
    try {
      if (m.type === 'connect') {
        target = m.sockets;
        const all: Promise<void>[] = [];
        for (let s = 0; s < m.sockets; s++) {
          const socket = connect(m.url, {
            transports: ['websocket'],
            auth: { token: m.token },
            reconnection: false,
            forceNew: true,
          });
          sockets.push(socket);
          socket.on('statusUpdated', onEvent);
          socket.on('disconnect', (reason) => {
            if (!closing) post({ type: 'error', message: `socket ${s} disconnected (${reason})` });
          });
          all.push(
            new Promise<void>((resolve, reject) => {
              // The catch-up comes after the socket joined its rooms: from then on it hears the account.
              socket.once('catchUp', () => resolve());
              socket.once('connect_error', (err) => reject(err));
            }),
          );
        }
        await Promise.all(all);
        post({ type: 'connected' });
      } else if (m.type === 'phase') {
        phase = m.phase;
        n = m.n;
        counts = new Uint32Array(n);
        latencies = new Float64Array(n * target);
        k = 0;
        post({ type: 'ready', phase });
      } else if (m.type === 'report') {
        const got = latencies.subarray(0, k).sort();
        const pct = (p: number) => got[Math.min(got.length - 1, Math.floor((p / 100) * got.length))] ?? Number.NaN;
        let sum = 0;
        for (const v of got) sum += v;
        post({
          type: 'report',
          phase: m.phase,
          receipts: k,
          p50: pct(50),
          p99: pct(99),
          max: got[got.length - 1] ?? Number.NaN,
          mean: sum / Math.max(1, got.length),
        });
      } else if (m.type === 'close') {
        closing = true;
        const gone = sockets.map((s) => new Promise<void>((resolve) => s.once('disconnect', () => resolve())));
        for (const s of sockets) s.disconnect();
        await Promise.race([Promise.all(gone), new Promise((r) => setTimeout(r, 2_000))]);
        sockets = [];
        post({ type: 'closed' });
        port.close();
      }
    } catch (err) {
      post({ type: 'error', message: err instanceof Error ? err.message : String(err) });
    }
  });
}

if (!isMainThread && parentPort) runClients();
