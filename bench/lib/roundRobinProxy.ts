/**
 * A small round-robin load balancer on loopback, for the chaos benchmark: each HTTP request and each
 * WebSocket upgrade goes to the next node of `targets()` (read at every connection, so a restarted node on a
 * new port joins at once); a node that refuses the connection is skipped for the next one. What a
 * deployment's balancer does, minus health checks: a node killed mid-request drops that request.
 */
import http from 'node:http';
import type net from 'node:net';
import { connect } from 'node:net';

export interface Proxy {
  url: string;
  close(): Promise<void>;
}

export async function startRoundRobinProxy(targets: () => URL[]): Promise<Proxy> {
  let next = 0;
  const pick = () => {
    const all = targets();
    const order = all.map((_, k) => all[(next + k) % all.length]!);
    next = (next + 1) % Math.max(1, all.length);
    return order;
  };
  const open = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (d: Buffer) => body.push(d));
    req.on('end', () => {
      const tryNode = (nodes: URL[]) => {
        const t = nodes[0];
        if (!t) {
          res.writeHead(502).end('no node answered');
          return;
        }
        const out = http.request(
          { host: t.hostname, port: t.port, path: req.url, method: req.method, headers: req.headers },
          (up) => {
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
            up.on('error', () => res.destroy());
          },
        );
        out.on('error', (err: NodeJS.ErrnoException) => {
          // Refused before anything was sent: the next node takes it. Otherwise the request is lost.
          if (err.code === 'ECONNREFUSED' && !res.headersSent) tryNode(nodes.slice(1));
          else res.destroy();
        });
        out.end(Buffer.concat(body));
      };
      tryNode(pick());
    });
  });
  server.on('upgrade', (req, client: net.Socket, head: Buffer) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => client.destroy());
    const tryNode = (nodes: URL[]) => {
      const t = nodes[0];
      if (!t) {
        client.destroy();
        return;
      }
      const up = connect(Number(t.port), t.hostname);
      open.add(up);
      up.on('close', () => {
        open.delete(up);
        client.destroy();
      });
      up.once('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'ECONNREFUSED') {
          up.removeAllListeners('close');
          open.delete(up);
          tryNode(nodes.slice(1));
        } else client.destroy();
      });
      up.once('connect', () => {
        const lines = [`${req.method} ${req.url} HTTP/1.1`];
        for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
        up.write(`${lines.join('\r\n')}\r\n\r\n`);
        if (head.length) up.write(head);
        up.pipe(client);
        client.pipe(up);
        client.on('close', () => up.destroy());
      });
    };
    tryNode(pick());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      for (const s of open) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
