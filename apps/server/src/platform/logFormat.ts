/**
 * Log lines for a person at a terminal. pino writes one JSON object per line (what log collectors read);
 * when the server's standard output is a terminal, each line is shown as
 * `12:04:05.120 INFO  Parley is listening on http://localhost:3000  port=3000 database=sqlite` instead.
 * It formats lines pino has already written, so redaction (REDACT, serializeRequest) has happened before.
 */

const LEVELS: Record<number, { name: string; color: string }> = {
  10: { name: 'TRACE', color: '90' },
  20: { name: 'DEBUG', color: '36' },
  30: { name: 'INFO', color: '32' },
  40: { name: 'WARN', color: '33' },
  50: { name: 'ERROR', color: '31' },
  60: { name: 'FATAL', color: '41;97' },
};

/** Fields that are shown in their own place, or not at all (the same on every line). */
const SHOWN = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'reqId', 'req', 'res', 'responseTime', 'err']);

const two = (n: number) => String(n).padStart(2, '0');

function clock(ms: unknown): string {
  const d = new Date(typeof ms === 'number' ? ms : Date.now());
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

function value(v: unknown): string {
  if (typeof v === 'string') return /[\s"=]/.test(v) || v === '' ? JSON.stringify(v) : v;
  return JSON.stringify(v) ?? String(v);
}

/** One pino JSON line as a readable line (or lines, for an error's stack); other text is passed through. */
export function formatLogLine(line: string, color: boolean): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line);
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  if (!o || typeof o !== 'object') return `${line}\n`;
  const paint = (code: string, s: string) => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
  const level = LEVELS[Number(o.level)] ?? { name: String(o.level ?? 'LOG').toUpperCase(), color: '0' };
  const parts = [paint('90', clock(o.time)), paint(level.color, level.name.padEnd(5))];
  if (o.reqId !== undefined) parts.push(paint('90', `[${String(o.reqId)}]`));
  const req = o.req as { method?: string; url?: string } | undefined;
  if (req?.method) parts.push(`${req.method} ${req.url ?? ''}`);
  const res = o.res as { statusCode?: number } | undefined;
  if (res?.statusCode !== undefined) {
    const code = res.statusCode;
    parts.push(paint(code >= 500 ? '31' : code >= 400 ? '33' : '32', String(code)));
  }
  if (typeof o.responseTime === 'number') parts.push(paint('90', `${Math.round(o.responseTime)} ms`));
  if (o.msg !== undefined) parts.push(String(o.msg));
  const rest = Object.entries(o)
    .filter(([k]) => !SHOWN.has(k))
    .map(([k, v]) => `${paint('90', `${k}=`)}${value(v)}`);
  let out = parts.join(' ') + (rest.length ? `  ${rest.join(' ')}` : '');
  const err = o.err as { stack?: string; message?: string; type?: string } | undefined;
  if (err) {
    const text = err.stack ?? `${err.type ?? 'Error'}: ${err.message ?? ''}`;
    out += `\n${text
      .split('\n')
      .map((l) => `    ${l}`)
      .join('\n')}`;
  }
  return `${out}\n`;
}

/** A pino destination that writes readable lines to `out` (the process's standard output by default). */
export function prettyStream(
  out: { write(chunk: string): unknown } = process.stdout,
  opts: { color?: boolean } = {},
): { write(chunk: string): void } {
  const color = opts.color ?? true;
  return {
    write(chunk: string) {
      // pino hands over one line per call; split anyway, so that nothing is lost if it ever batches.
      for (const line of chunk.split('\n')) if (line) out.write(formatLogLine(line, color));
    },
  };
}
