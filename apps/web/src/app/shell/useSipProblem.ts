import type { AuthCheckAnswer } from '@parley/contracts';
import { useCallback, useEffect, useState } from 'react';

/** CALL-05: why the softphone cannot work in this browser, worst first. */
export type SipProblem = 'insecure' | 'blocked' | 'noMic';

/** sessionStorage: the problem the user dismissed in this tab's session. */
const DISMISSED_KEY = 'parley.sip.dismissed';

/** What stops calls here, or null when the microphone is (or may yet be) usable. */
export async function sipProblem(): Promise<SipProblem | null> {
  // No mediaDevices outside a secure context (http on an address other than localhost).
  if (!window.isSecureContext || !navigator.mediaDevices?.getUserMedia) return 'insecure';
  const state = await navigator.permissions
    ?.query({ name: 'microphone' as PermissionName })
    .then((p) => p.state)
    .catch(() => null);
  if (state === 'denied') return 'blocked';
  const devices = await navigator.mediaDevices.enumerateDevices().catch(() => null);
  if (devices && !devices.some((d) => d.kind === 'audioinput')) return 'noMic';
  return null;
}

function readDismissed(): string | null {
  try {
    return sessionStorage.getItem(DISMISSED_KEY);
  } catch {
    return null;
  }
}

/**
 * CALL-03, CALL-04, CALL-05: the SIP problem to show while the user's SIP line is active, rechecked when the
 * microphone permission or the devices change. Dismiss hides that problem for this browser session; a
 * different problem later shows again.
 */
export function useSipProblem(session: AuthCheckAnswer): { problem: SipProblem | null; dismiss(): void } {
  const active = session.sip?.active === true;
  const [problem, setProblem] = useState<SipProblem | null>(null);
  const [dismissed, setDismissed] = useState<string | null>(readDismissed);

  useEffect(() => {
    if (!active) {
      setProblem(null);
      return;
    }
    let live = true;
    const check = () => void sipProblem().then((p) => live && setProblem(p));
    check();
    let status: PermissionStatus | null = null;
    navigator.permissions
      ?.query({ name: 'microphone' as PermissionName })
      .then((s) => {
        if (!live) return;
        status = s;
        s.addEventListener('change', check);
      })
      .catch(() => undefined);
    navigator.mediaDevices?.addEventListener?.('devicechange', check);
    return () => {
      live = false;
      status?.removeEventListener('change', check);
      navigator.mediaDevices?.removeEventListener?.('devicechange', check);
    };
  }, [active]);

  const dismiss = useCallback(() => {
    if (!problem) return;
    try {
      sessionStorage.setItem(DISMISSED_KEY, problem);
    } catch {}
    setDismissed(problem);
  }, [problem]);

  return { problem: problem && problem !== dismissed ? problem : null, dismiss };
}
