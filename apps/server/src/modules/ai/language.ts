import { eld } from 'eld/small';
import type { Translator } from '../messages/index.js';

/**
 * Offline language detection with `eld` (an n-gram detector that ships its own data: nothing is fetched). The
 * "small" data set: 60 languages, a few MB loaded once at import. Answers an ISO 639-1 code, or null when the
 * text is too short or mixed to tell (eld's own reliability check, a floor of letters and a clear winner).
 */
export function detectLanguage(text: string): string | null {
  // Enough letters to read: a greeting of two words is guessed at, a link or an emoji is not.
  const letters = text.replace(/[\p{P}\p{S}\p{N}\s]/gu, '');
  if (letters.length < 8) return null;
  const r = eld.detect(text.slice(0, 2_000));
  if (!r.language || !r.isReliable()) return null;
  // eld calls some short greetings reliable on a near tie ("Hello from Hana" reads as Icelandic by 0.67 to
  // 0.64): a clear winner is asked for as well.
  const [first = 0, second = 0] = Object.values(r.getScores()).sort((a, b) => b - a);
  return first >= 0.7 && first - second >= 0.1 ? r.language : null;
}

/** The base language of a code (`pt-BR` → `pt`), lower-cased, to compare with a detected one. */
export const baseLanguage = (code: string) => code.toLowerCase().split('-')[0]!;

/** True when the text reliably reads as the target language already (so it needs no translation). */
export function alreadyIn(text: string, target: string): boolean {
  const lang = detectLanguage(text);
  return lang !== null && lang === baseLanguage(target);
}

/**
 * MSG-49: a translator that asks its provider only for texts not already in the target language (they come
 * back as written), and names the source language when the caller gave none and every text sent reads as the
 * same one. No call at all when nothing needs translating.
 */
export function skippingTranslator(inner: Translator): Translator {
  return {
    async translate(texts, target, source) {
      const langs = texts.map((t) => detectLanguage(t));
      const todo = texts.map((_, i) => i).filter((i) => langs[i] !== baseLanguage(target));
      if (todo.length === 0) return [...texts];
      const seen = new Set(todo.map((i) => langs[i]));
      const detected = seen.size === 1 ? [...seen][0] : null;
      const from = source && source !== 'auto' ? source : (detected ?? undefined);
      const done = await inner.translate(
        todo.map((i) => texts[i]!),
        target,
        from,
      );
      const out = [...texts];
      todo.forEach((i, k) => {
        out[i] = done[k]!;
      });
      return out;
    },
  };
}
