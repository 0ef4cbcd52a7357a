import { speechWav } from '@parley/contracts/fixtures';
import { describe, expect, it } from 'vitest';
import { analyseVoice, decodeWav } from './voice.js';

const hear = (buf: Buffer) => analyseVoice(decodeWav(buf));

describe('the voice reading', () => {
  it('CALL-50 CALL-31 REC-06 RT-25 loud and fast is angry, loud and slow happy, moderate calm, quiet sad; silence counts nowhere', () => {
    const r = hear(
      speechWav([
        { gain: 0.8, bursts: 5 }, // loud, 300 onsets a minute
        { gain: 0.8, bursts: 5 },
        { gain: 0.8, bursts: 2 }, // loud, slow
        { gain: 0, bursts: 0 }, // silence
        { gain: 0.05, bursts: 2 }, // moderate, slow
        { gain: 0.004, bursts: 2 }, // quiet
      ]),
    );
    expect(r.emotion).toEqual(['angry', 'angry', 'happy', '', 'calm', 'sad']);
    expect(r.tempo).toEqual([300, 300, 120, 0, 120, 120]);
    expect(r.amplitude).toHaveLength(6);
    expect(r.amplitude[3]).toBe(0);
    expect(r.amplitude[0]).toBeGreaterThan(r.amplitude[4]!);
    expect(r.percentage).toEqual({ angry: 40, happy: 20, calm: 20, sad: 20 });
    expect(Object.values(r.percentage).reduce((a, b) => a + b, 0)).toBe(100);
    for (const v of [r.energy, r.pace]) expect([0, 25, 50, 75, 100]).toContain(v);
  });

  it('RT-25 a sudden jump in loudness is surprised; stereo is mixed to mono; shares of three add to 100', () => {
    const r = hear(
      speechWav(
        [
          { gain: 0.02, bursts: 2 },
          { gain: 0.9, bursts: 2 },
          { gain: 0.02, bursts: 2 },
        ],
        2,
      ),
    );
    expect(r.emotion).toEqual(['calm', 'surprised', 'calm']);
    expect(r.percentage).toEqual({ calm: 67, surprised: 33 });
  });

  it('CALL-51 what is not a WAV of PCM or float is a clear 415', () => {
    const bad = [Buffer.from('ID3\u0003not a wav'), Buffer.alloc(0), Buffer.from('RIFF\0\0\0\0WAVEjunk')];
    for (const b of bad) expect(() => decodeWav(b)).toThrow(/WAV file/);
    // A-law (format 6) is a WAV this reader does not decode.
    const alaw = speechWav([{ gain: 0.5, bursts: 2 }]);
    alaw.writeUInt16LE(6, 20);
    expect(() => decodeWav(alaw)).toThrow(/WAV file/);
  });
});
