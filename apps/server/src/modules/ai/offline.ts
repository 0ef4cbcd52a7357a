import { analyseMessage } from './engine/analyse.js';
import { ACTION_TEXT } from './findings.js';
import type { AiProvider } from './provider.js';

/** The offline engine as a provider: its next best action is the hint, its cues the reasons. */
export const offlineProvider: AiProvider = {
  engine: 'offline',
  async hint(req) {
    const analysis = analyseMessage(req.translation || req.text);
    const next = analysis.next_action;
    return {
      recommendation: ACTION_TEXT[next.value],
      confidence: next.confidence,
      engine: 'offline',
      cues: next.cues,
      analysis,
    };
  },
};
