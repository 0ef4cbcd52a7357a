// Loaded into the server by scripts/start.mjs (`--import`): when start.mjs dies without stopping the
// server first (killed outright, crashed), the IPC channel between them closes and the server stops as if
// sent SIGTERM, instead of running on unseen and holding its port.
if (process.channel) {
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  // The channel alone must not keep the server running (it only listens for the parent's end).
  process.channel.unref();
}
