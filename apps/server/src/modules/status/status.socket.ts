import type pino from 'pino';
import type { AppSocket } from '../../platform/realtime/realtime.js';
import type { Presence } from './presence.js';

/** Each socket's presence: connecting (and `tellOnline`, STATUS-14) marks the user here; closing starts the grace. */
export function presenceSocket(presence: Presence, log: pino.Logger) {
  return (socket: AppSocket) => {
    const who = socket.data.auth;
    const fail = (err: unknown) => log.error({ err }, 'presence update failed');
    presence.connected(who, socket.id).catch(fail);
    socket.on('tellOnline', () => void presence.tellOnline(who, socket.id).catch(fail));
    socket.on('disconnect', () => void presence.disconnected(who, socket.id).catch(fail));
  };
}
