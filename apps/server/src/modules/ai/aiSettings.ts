import {
  type AiProviderChoice,
  type AiSettings,
  type AiSettingsInput,
  type AiTranslatorChoice,
  ErrorCode,
  AI_SETTINGS_STRINGS as S,
} from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import { AppError, badRequest } from '../../platform/http/errors.js';
import { runCommand } from '../../platform/outbox/index.js';
import { recordAudit } from '../audit/index.js';
import type { Secrets } from '../email/index.js';
import type { Translator, Translators } from '../messages/index.js';
import { httpHints } from './hints.js';
import { skippingTranslator } from './language.js';
import { offlineProvider } from './offline.js';
import {
  type AllowedModelHost,
  type ModelClient,
  modelClient,
  modelUrlProblem,
  openaiProvider,
  openaiTranslator,
} from './openai.js';
import type { AiProvider, AiProviders } from './provider.js';

/** What the installation set up (config), the same for every account. */
export interface AiInstallation {
  hintsUrl?: string;
  hintsKey?: string;
  /** The LibreTranslate-compatible translator of TRANSLATE_URL, or null. */
  translator: Translator | null;
  /** Seals the accounts' API keys (SECRETS_KEY); null: a key cannot be stored. */
  secrets: Secrets | null;
  timeoutMs: number;
  allowedHosts: readonly AllowedModelHost[];
  /** How long an account's settings are reused before they are read again (PUT clears them at once). */
  cacheMs?: number;
}

/** An account's settings as stored (the key opened), or the defaults when it has none. */
interface Resolved {
  provider: AiProviderChoice;
  translator: AiTranslatorChoice;
  /** The model's client when its settings are complete (a base URL and a model; the key may be ''). */
  model: ModelClient | null;
  /** True when a key is stored that this server's SECRETS_KEY cannot open. */
  keyUnreadable: boolean;
}

const DEFAULTS = {
  provider: 'offline',
  base_url: '',
  model: '',
  key_sealed: '',
  key_last4: '',
  translator: 'installation',
};

/**
 * AI-01: each account's choice of engine and translator. The hints provider is the account's language model
 * when it chose one and its settings are complete, else the installation's hints service (AI_HINTS_URL) when
 * set, else the built-in engine. Settings are read once per `cacheMs` per account and forgotten on save.
 */
export class AccountAi implements AiProviders {
  private readonly cache = new Map<number, { at: number; value: Promise<Resolved> }>();
  private readonly fallback: AiProvider;

  readonly allowedHosts: readonly AllowedModelHost[];

  constructor(private readonly o: AiInstallation) {
    this.allowedHosts = o.allowedHosts;
    this.fallback = o.hintsUrl ? httpHints(o.hintsUrl, o.hintsKey) : offlineProvider;
  }

  async forAccount(db: DB, accountId: number): Promise<AiProvider> {
    const r = await this.resolve(db, accountId);
    return r.provider === 'openai' && r.model ? openaiProvider(r.model) : this.fallback;
  }

  /** The model of an account that set one up (whichever engine gives its hints), or null. */
  async modelFor(db: DB, accountId: number): Promise<ModelClient | null> {
    return (await this.resolve(db, accountId)).model;
  }

  /** The account's chosen engine: the model's only when chosen and complete. */
  async engineFor(db: DB, accountId: number): Promise<{ model: ModelClient | null; chosen: boolean }> {
    const r = await this.resolve(db, accountId);
    return { model: r.provider === 'openai' ? r.model : null, chosen: r.provider === 'openai' };
  }

  /** MSG-49: the account's translator, for the message routes. */
  readonly translators: Translators = { forAccount: (db, accountId) => this.translatorFor(db, accountId) };

  async translatorFor(db: DB, accountId: number): Promise<Translator | null> {
    const r = await this.resolve(db, accountId);
    const t = r.translator === 'openai' && r.model ? openaiTranslator(r.model) : this.o.translator;
    return t ? skippingTranslator(t) : null;
  }

  /** Forgets an account's settings (after a save). */
  forget(accountId: number): void {
    this.cache.delete(accountId);
  }

  private resolve(db: DB, accountId: number): Promise<Resolved> {
    const now = Date.now();
    const hit = this.cache.get(accountId);
    if (hit && now - hit.at < (this.o.cacheMs ?? 5_000)) return hit.value;
    const value = this.read(db, accountId);
    this.cache.set(accountId, { at: now, value });
    // A failed read is not kept.
    value.catch(() => this.cache.delete(accountId));
    if (this.cache.size > 10_000) this.cache.delete(this.cache.keys().next().value!);
    return value;
  }

  private async read(db: DB, accountId: number): Promise<Resolved> {
    const row = await storedRow(db, accountId);
    let key = '';
    let keyUnreadable = false;
    if (row.key_sealed) {
      const opened = this.o.secrets?.open(accountId, row.key_sealed) ?? null;
      if (opened === null) keyUnreadable = true;
      else key = opened;
    }
    const complete = !!row.base_url && !!row.model && !keyUnreadable;
    return {
      provider: row.provider as AiProviderChoice,
      translator: row.translator as AiTranslatorChoice,
      model: complete ? this.client({ baseUrl: row.base_url, model: row.model, apiKey: key }) : null,
      keyUnreadable,
    };
  }

  /** A client for these settings (the route's Test uses it before saving). */
  client(s: { baseUrl: string; model: string; apiKey: string }): ModelClient {
    return modelClient({ ...s, timeoutMs: this.o.timeoutMs, allowed: this.o.allowedHosts });
  }

  /** The account's settings as answered: the key only as whether one is set and its last 4 characters. */
  async view(db: DB, accountId: number): Promise<AiSettings> {
    const row = await storedRow(db, accountId);
    return {
      provider: row.provider as AiProviderChoice,
      base_url: row.base_url,
      model: row.model,
      key_set: !!row.key_sealed,
      key_last4: row.key_last4,
      translator: row.translator as AiTranslatorChoice,
      installation: { hints_service: !!this.o.hintsUrl, translate: !!this.o.translator, secrets: !!this.o.secrets },
    };
  }

  /** The stored key opened, or '' when none; a key this server cannot open is a clear 400. */
  async storedKey(db: DB, accountId: number): Promise<string> {
    const row = await storedRow(db, accountId);
    if (!row.key_sealed) return '';
    const key = this.o.secrets?.open(accountId, row.key_sealed) ?? null;
    if (key === null) throw badRequest(S.cannotDecrypt);
    return key;
  }

  /** Checks the input (before any write): an http(s) base URL the server may reach, complete for `openai`. */
  check(input: AiSettingsInput): void {
    if (input.base_url) {
      const problem = modelUrlProblem(input.base_url, this.o.allowedHosts);
      if (problem) throw badRequest(problem);
    }
    if ((input.provider === 'openai' || input.translator === 'openai') && (!input.base_url || !input.model))
      throw badRequest(S.incomplete);
    if (input.api_key && !this.o.secrets) throw new AppError(400, ErrorCode.validation, S.noSecretsKey);
  }

  /** Saves an account's settings (admins); the key is sealed, kept when absent, removed when ''. Audited. */
  async save(
    db: DB,
    auth: { accountId: number; userId: number; username: string },
    input: AiSettingsInput,
  ): Promise<void> {
    const { accountId, userId } = auth;
    this.check(input);
    const key =
      input.api_key === undefined
        ? undefined
        : input.api_key === ''
          ? { key_sealed: '', key_last4: '' }
          : { key_sealed: this.o.secrets!.seal(accountId, input.api_key), key_last4: input.api_key.slice(-4) };
    const values = {
      provider: input.provider,
      base_url: input.base_url,
      model: input.model,
      translator: input.translator,
      updated_by: userId,
      updated_at: Date.now(),
      ...(key ?? {}),
    };
    await runCommand(db, async (trx) => {
      await trx
        .insertInto('ai_settings')
        .values({ account_id: accountId, key_sealed: '', key_last4: '', ...values })
        .onConflict((oc) => oc.column('account_id').doUpdateSet(values))
        .execute();
      // What changed, never the key: only whether it was set, removed or kept.
      await recordAudit(trx, {
        accountId,
        userId,
        actor: auth.username,
        action: 'ai.settings_changed',
        detail: {
          provider: input.provider,
          model: input.model,
          translator: input.translator,
          key: input.api_key === undefined ? 'kept' : input.api_key === '' ? 'removed' : 'set',
        },
      });
    });
    this.forget(accountId);
  }
}

async function storedRow(db: DB, accountId: number) {
  const row = await db
    .selectFrom('ai_settings')
    .select(['provider', 'base_url', 'model', 'key_sealed', 'key_last4', 'translator'])
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row ?? DEFAULTS;
}
