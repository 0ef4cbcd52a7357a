import { ENERGY_STEPS, ErrorCode, type RecordingEmotion, VOICE_STRINGS, type VoiceAnalysis } from '@parley/contracts';
import { AppError } from '../../platform/http/errors.js';

/** Mono samples in -1..1 and their rate. */
export interface Pcm {
  rate: number;
  samples: Float32Array;
}

/** At most this much audio is analysed (the first ten minutes): a reading, not an archive job. */
const MAX_SECONDS = 600;
const notWav = () => new AppError(415, ErrorCode.validation, VOICE_STRINGS.notWav);

/**
 * Decodes a RIFF/WAVE file of PCM (8, 16, 24 or 32 bit) or 32-bit float, any channel count, to mono. No
 * codec is needed for these, and they are what call recorders and browsers' recorders write; anything else
 * is a clear 415.
 */
export function decodeWav(buf: Buffer): Pcm {
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'RIFF' || buf.toString('latin1', 8, 12) !== 'WAVE')
    throw notWav();
  let fmt: { format: number; channels: number; rate: number; bits: number } | null = null;
  let at = 12;
  while (at + 8 <= buf.length) {
    const id = buf.toString('latin1', at, at + 4);
    const size = buf.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ' && size >= 16 && body + 16 <= buf.length) {
      fmt = {
        format: buf.readUInt16LE(body),
        channels: buf.readUInt16LE(body + 2),
        rate: buf.readUInt32LE(body + 4),
        bits: buf.readUInt16LE(body + 14),
      };
      // WAVE_FORMAT_EXTENSIBLE: the real format is the sub-format's first two bytes.
      if (fmt.format === 0xfffe && size >= 26 && body + 26 <= buf.length) fmt.format = buf.readUInt16LE(body + 24);
    } else if (id === 'data') {
      if (!fmt) throw notWav();
      return toMono(buf.subarray(body, Math.min(buf.length, body + size)), fmt);
    }
    at = body + size + (size % 2);
  }
  throw notWav();
}

function toMono(data: Buffer, f: { format: number; channels: number; rate: number; bits: number }): Pcm {
  const pcm = f.format === 1 && [8, 16, 24, 32].includes(f.bits);
  const float = f.format === 3 && f.bits === 32;
  if ((!pcm && !float) || f.channels < 1 || f.rate < 1000 || f.rate > 384_000) throw notWav();
  const width = f.bits / 8;
  const frame = width * f.channels;
  const frames = Math.min(Math.floor(data.length / frame), f.rate * MAX_SECONDS);
  const read = (o: number): number => {
    if (float) return data.readFloatLE(o);
    if (f.bits === 8) return (data[o]! - 128) / 128;
    if (f.bits === 16) return data.readInt16LE(o) / 32768;
    if (f.bits === 24) return data.readIntLE(o, 3) / 8388608;
    return data.readInt32LE(o) / 2147483648;
  };
  const samples = new Float32Array(frames);
  for (let i = 0; i < frames; i++) {
    let sum = 0;
    for (let c = 0; c < f.channels; c++) sum += read(i * frame + c * width);
    samples[i] = sum / f.channels;
  }
  return { rate: f.rate, samples };
}

/** Level of a stretch of samples: RMS in dB over full scale, plus 100 (0 is silence, 100 full scale). */
function level(s: Float32Array, from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += s[i]! * s[i]!;
  const rms = Math.sqrt(sum / Math.max(1, to - from));
  return Math.max(0, 20 * Math.log10(rms || 1e-10) + 100);
}

const FRAME_S = 0.02;
/** Below this level a second is silence: it has no emotion and counts in no percentage. */
const SILENT = 40;

/**
 * CALL-50, REC-06, RT-25 (voice): a reading of speech from its loudness and pace. Each second gets an
 * amplitude (its level, 0-100 as above) and a tempo (syllable-like onsets a minute: 20 ms frames whose
 * level jumps 6 dB over the frame before after a quieter stretch), and from the two an emotion of the
 * recording filter's names by rules: loud and fast is angry, loud is happy, a sudden jump of 15 or more
 * over the second before is surprised, moderate and fast is fearful, moderate is calm, quiet is sad.
 * `percentage` is each emotion's share of the voiced seconds (whole numbers that add up to 100); `energy`
 * and `pace` are the whole recording's on CALL-31's steps. Rules, not a model: they hear how something is
 * said, not what; a model can replace them behind the same answer.
 */
export function analyseVoice(p: Pcm): VoiceAnalysis {
  const perSecond = p.rate;
  const seconds = Math.max(1, Math.ceil(p.samples.length / perSecond));
  const frameLen = Math.max(1, Math.round(p.rate * FRAME_S));
  const amplitude: number[] = [];
  const tempo: number[] = [];
  const emotion: (RecordingEmotion | '')[] = [];
  for (let s = 0; s < seconds; s++) {
    const from = s * perSecond;
    const to = Math.min(p.samples.length, from + perSecond);
    const a = level(p.samples, from, to);
    let onsets = 0;
    let prev = 0;
    let quiet = true;
    for (let f = from; f + frameLen <= to; f += frameLen) {
      const l = level(p.samples, f, f + frameLen);
      if (quiet && l >= SILENT && l - prev >= 6) {
        onsets++;
        quiet = false;
      } else if (l < prev - 6 || l < SILENT) quiet = true;
      prev = l;
    }
    amplitude.push(round(a));
    tempo.push(onsets * 60);
    emotion.push(secondEmotion(a, onsets * 60, amplitude[s - 1]));
  }
  const voiced = emotion.filter((e): e is RecordingEmotion => e !== '');
  const counts: Partial<Record<RecordingEmotion, number>> = {};
  for (const e of voiced) counts[e] = (counts[e] ?? 0) + 1;
  const voicedAmp = amplitude.filter((_, i) => emotion[i] !== '');
  const voicedTempo = tempo.filter((_, i) => emotion[i] !== '');
  return {
    percentage: shares(counts, voiced.length),
    emotion,
    amplitude,
    tempo,
    energy: step(((mean(voicedAmp) - SILENT) / (90 - SILENT)) * 100),
    pace: step((mean(voicedTempo) / 300) * 100),
  };
}

function secondEmotion(a: number, t: number, before: number | undefined): RecordingEmotion | '' {
  if (a < SILENT) return '';
  if (before !== undefined && before >= SILENT && a - before >= 15) return 'surprised';
  if (a >= 75) return t >= 200 ? 'angry' : 'happy';
  if (a >= 55) return t >= 200 ? 'fearful' : 'calm';
  return 'sad';
}

const round = (n: number) => Math.round(n * 10) / 10;
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
/** CALL-31: the nearest of 0, 25, 50, 75, 100. */
const step = (n: number) => ENERGY_STEPS.reduce((best, s) => (Math.abs(s - n) < Math.abs(best - n) ? s : best), 0);

/** Whole-number shares that add up to 100 (largest remainders get the leftover points). */
function shares(counts: Partial<Record<string, number>>, total: number): Record<string, number> {
  if (total === 0) return {};
  const exact = Object.entries(counts).map(([e, n]) => ({ e, x: ((n ?? 0) * 100) / total }));
  const out: Record<string, number> = Object.fromEntries(exact.map(({ e, x }) => [e, Math.floor(x)]));
  let left = 100 - Object.values(out).reduce((a, b) => a + b, 0);
  for (const { e } of [...exact].sort((a, b) => (b.x % 1) - (a.x % 1))) {
    if (left-- <= 0) break;
    out[e]! += 1;
  }
  return out;
}
