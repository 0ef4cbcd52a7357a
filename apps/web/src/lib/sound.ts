import { shell } from './shellStore';

/**
 * Two sounds, made with Web Audio (no files to load): the notification at volume 0.5 and the
 * ringing, looped at volume 1. Browsers keep audio suspended until the user interacts with the page; when a
 * sound is blocked, the interaction-required modal asks for a click (SHELL-56), which resumes audio.
 */
let ctx: AudioContext | null = null;
let ringTimer: number | null = null;
const RESUME_WAIT_MS = 300;

function audio(): AudioContext | null {
  if (typeof window === 'undefined' || !('AudioContext' in window)) return null;
  ctx ??= new AudioContext();
  return ctx;
}

async function ready(): Promise<AudioContext | null> {
  const c = audio();
  if (!c) return null;
  // Without a user gesture, resume() may stay pending until one comes: wait at most a moment for it.
  if (c.state !== 'running') {
    await Promise.race([c.resume().catch(() => undefined), new Promise((r) => setTimeout(r, RESUME_WAIT_MS))]);
  }
  if (c.state !== 'running') {
    shell.set({ interactionRequired: true });
    return null;
  }
  return c;
}

function tone(c: AudioContext, freq: number, volume: number, start: number, length: number) {
  const osc = c.createOscillator();
  const gain = c.createGain();
  osc.frequency.value = freq;
  gain.gain.setValueAtTime(0, c.currentTime + start);
  gain.gain.linearRampToValueAtTime(volume, c.currentTime + start + 0.01);
  gain.gain.linearRampToValueAtTime(0, c.currentTime + start + length);
  osc.connect(gain).connect(c.destination);
  osc.start(c.currentTime + start);
  osc.stop(c.currentTime + start + length + 0.02);
}

/** Called from a user gesture (closing the interaction-required modal). */
export function resumeAudio(): void {
  void audio()
    ?.resume()
    .catch(() => undefined);
}

export async function playNotification(): Promise<void> {
  const c = await ready();
  if (!c) return;
  tone(c, 880, 0.5, 0, 0.12);
  tone(c, 1320, 0.5, 0.15, 0.18);
}

export async function startRinging(): Promise<void> {
  if (ringTimer !== null) return;
  const ring = async () => {
    const c = await ready();
    if (!c) return;
    for (let i = 0; i < 4; i++) tone(c, i % 2 ? 480 : 440, 1, i * 0.25, 0.22);
  };
  void ring();
  ringTimer = window.setInterval(ring, 3_000);
}

export function stopRinging(): void {
  if (ringTimer !== null) window.clearInterval(ringTimer);
  ringTimer = null;
}
