/**
 * The sockets benchmark's baseline: a bare socket.io server, nothing of Parley, as its own process. Every
 * socket joins one room; `POST /broadcast` emits the body it is given to that room as `statusUpdated`, the
 * way Parley's relay emits an account's event. Agents connect on `/`, visitors on `/visitor`, as in Parley.
 * PORT from the environment; prints "ready" when listening.
 */
import http from 'node:http';
import { Server } from 'socket.io';

const server = http.createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/broadcast') {
    res.writeHead(404).end();
    return;
  }
  let body = '';
  req.on('data', (d) => {
    body += d;
  });
  req.on('end', () => {
    io.to('all').emit('statusUpdated', JSON.parse(body));
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
});
const io = new Server(server, { transports: ['websocket'], serveClient: false });
io.on('connection', (socket) => {
  void socket.join('all');
});
io.of('/visitor').on('connection', () => {});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => {
  io.close();
  server.close(() => process.exit(0));
});
