/**
 * Test fixtures shared by the server's tests and the browser tests (never imported by the app).
 *
 * Test speech: a WAV of 16-bit PCM at 16 kHz, built second by second. Each second is `bursts` bursts of a
 * 220 Hz tone at `gain` (0-1, of full scale) with quiet between them, like syllables; 0 bursts is silence.
 */
export function speechWav(seconds: { gain: number; bursts: number }[], channels = 1): Buffer {
  const rate = 16_000;
  const n = rate * seconds.length;
  const data = Buffer.alloc(n * 2 * channels);
  seconds.forEach(({ gain, bursts }, s) => {
    const period = bursts > 0 ? Math.floor(rate / bursts) : rate;
    for (let i = 0; i < rate; i++) {
      const on = bursts > 0 && i % period < period * 0.6;
      const v = on ? gain * Math.sin((2 * Math.PI * 220 * i) / rate) : 0;
      for (let c = 0; c < channels; c++) data.writeInt16LE(Math.round(v * 32767), ((s * rate + i) * channels + c) * 2);
    }
  });
  const head = Buffer.alloc(44);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(36 + data.length, 4);
  head.write('WAVE', 8, 'latin1');
  head.write('fmt ', 12, 'latin1');
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20);
  head.writeUInt16LE(channels, 22);
  head.writeUInt32LE(rate, 24);
  head.writeUInt32LE(rate * 2 * channels, 28);
  head.writeUInt16LE(2 * channels, 32);
  head.writeUInt16LE(16, 34);
  head.write('data', 36, 'latin1');
  head.writeUInt32LE(data.length, 40);
  return Buffer.concat([head, data]);
}
