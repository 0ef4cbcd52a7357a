import client from 'prom-client';

/** One registry per server instance, so tests can run several in one process. */
export function createMetrics() {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const httpRequests = new client.Counter({
    name: 'parley_http_requests_total',
    help: 'HTTP requests answered, by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new client.Histogram({
    name: 'parley_http_request_duration_seconds',
    help: 'HTTP request duration.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const sockets = new client.Gauge({
    name: 'parley_realtime_sockets',
    help: 'Connected realtime sockets on this node.',
    registers: [registry],
  });
  /** Reports a number read at scrape time (relay counters and the like). */
  const gauge = (name: string, help: string, read: () => number) =>
    new client.Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  /** The same with one label: `read` answers a number per label value. */
  const labelledGauge = (name: string, help: string, label: string, read: () => Record<string, number>) =>
    new client.Gauge({
      name,
      help,
      labelNames: [label],
      registers: [registry],
      collect() {
        for (const [value, n] of Object.entries(read())) this.set({ [label]: value }, n);
      },
    });
  return { registry, httpRequests, httpDuration, sockets, gauge, labelledGauge };
}
export type Metrics = ReturnType<typeof createMetrics>;
