import fs from 'node:fs';
import path from 'node:path';
import { HOST_VARIANTS, type HostVariant } from '@parley/contracts';
import { z } from 'zod';

const int = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return def;
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `must be a whole number from ${min} to ${max}` });
        return z.NEVER;
      }
      return n;
    });

const url = (protocols: string[]) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (!v) return undefined;
      try {
        const u = new URL(v);
        if (!protocols.includes(u.protocol)) throw new Error();
        return v;
      } catch {
        ctx.addIssue({ code: 'custom', message: `must be a ${protocols.join(' or ')} URL` });
        return z.NEVER;
      }
    });

/** `host=variant,host=variant`: an unknown host is `combined`. */
const hostMap = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const map: Record<string, HostVariant> = {};
    for (const pair of (v ?? '').split(',').filter(Boolean)) {
      const [host, variant] = pair.split('=').map((s) => s.trim());
      if (!host || !HOST_VARIANTS.includes(variant as HostVariant)) {
        ctx.addIssue({ code: 'custom', message: `must look like host=${HOST_VARIANTS.join('|')},...` });
        return z.NEVER;
      }
      map[host.toLowerCase()] = variant as HostVariant;
    }
    return map;
  });

/**
 * `host` or `host:port` entries, comma-separated (`[::1]:8443` for IPv6), spelled as a URL spells them. An
 * entry without a port means https's default 443.
 */
const hostPortList = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const list: { host: string; port: string }[] = [];
    for (const entry of (v ?? '').split(',').map((s) => s.trim())) {
      if (!entry) continue;
      let parsed: URL | null = null;
      try {
        if (!/[/?#@\s]/.test(entry)) parsed = new URL(`https://${entry}`);
      } catch {}
      if (!parsed) {
        ctx.addIssue({ code: 'custom', message: 'must look like host or host:port, comma-separated' });
        return z.NEVER;
      }
      list.push({ host: parsed.hostname, port: parsed.port });
    }
    return list;
  });

/** 32 bytes in base64 (`openssl rand -base64 32`); empty is unset. */
const secretsKey = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (!v) return undefined;
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(v) || Buffer.from(v, 'base64').length !== 32) {
      ctx.addIssue({ code: 'custom', message: 'must be 32 bytes in base64 (openssl rand -base64 32)' });
      return z.NEVER;
    }
    return v;
  });

/** Every setting Parley reads, with its default. The README lists the same table. */
export const ConfigSchema = z.object({
  PORT: int(3000, 0, 65535),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: url(['postgres:', 'postgresql:']),
  REDIS_URL: url(['redis:', 'rediss:']),
  /** Names this installation's stream in a Redis shared with others (default: derived from the database). */
  REDIS_PREFIX: z
    .string()
    .regex(/^[\w:.-]{1,64}$/)
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT_BYTES: int(1_048_576, 1024),
  TRUST_PROXY: z.enum(['true', 'false']).default('false'),
  /** Who takes payments (docs/billing.md): none (plans set by the operator), sandbox (built-in test page) or stripe. */
  PAYMENT_PROVIDER: z.enum(['none', 'sandbox', 'stripe']).default('none'),
  /** Stripe: the secret API key, the webhook signing secret, and the API's address (tests: a loopback stand-in). */
  STRIPE_SECRET_KEY: z.preprocess((v) => (v === '' ? undefined : v), z.string().max(500).optional()),
  STRIPE_WEBHOOK_SECRET: z.preprocess((v) => (v === '' ? undefined : v), z.string().max(500).optional()),
  STRIPE_API_BASE: url(['http:', 'https:']),
  /** `/metrics` for anyone; by default only a Bearer METRICS_TOKEN or a call from this machine. */
  METRICS_PUBLIC: z.enum(['true', 'false']).default('false'),
  /** At least 16 characters; empty is unset. */
  METRICS_TOKEN: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(16).max(500).optional()),
  /** `/api/docs` (the OpenAPI document) for anyone; false: admins only. */
  API_DOCS_PUBLIC: z.enum(['true', 'false']).default('true'),
  HOST_VARIANTS: hostMap,
  RELAY_LEASE_MS: int(15_000, 100),
  RELAY_POLL_MS: int(250, 5),
  RELAY_BATCH: int(200, 1, 5000),
  EVENT_RETENTION_DAYS: int(7, 1),
  WEB_DIST: z.string().optional(),
  SMTP_URL: url(['smtp:', 'smtps:']),
  MAIL_FROM: z.string().default('Parley <no-reply@localhost>'),
  PUBLIC_URL: url(['http:', 'https:']),
  NODE_ID: z.string().optional(),
  PRESENCE_GRACE_MS: int(30_000, 0),
  /** How long a resolved session is reused by this node (0: read it on every call); see `SessionCache`. */
  SESSION_CACHE_MS: int(2_000, 0, 60_000),
  PRESENCE_HEARTBEAT_MS: int(15_000, 100),
  APP_VERSION: z.string().max(40).optional(),
  APP_WHATS_NEW: z.string().max(500).default(''),
  /** MSG-49: a LibreTranslate-compatible server; unset means translation answers "not configured". */
  TRANSLATE_URL: url(['http:', 'https:']),
  TRANSLATE_API_KEY: z.string().max(500).optional(),
  /** AI-01, AI-06: an HTTP service giving agents hints on customers' messages; unset: "not configured". */
  AI_HINTS_URL: url(['http:', 'https:']),
  ANALYTICS_URL: url(['http:', 'https:']),
  AI_HINTS_API_KEY: z.string().max(500).optional(),
  /** AI-01: how long a language model (an account's OpenAI-compatible API) has to answer one call. */
  AI_TIMEOUT_MS: int(15_000, 100, 120_000),
  /**
   * A language model's base URL is https at a public address; hosts allowed besides, over http or https and
   * whatever they resolve to (a local Ollama, a test stand-in on 127.0.0.1): `host` or `host:port`.
   */
  AI_ALLOWED_HOSTS: hostPortList,
  /** CALL-14: the installation's call server, SIP over WebSocket (`wss://sip.example.com:8089/ws`). */
  SIP_WS_URL: url(['ws:', 'wss:']),
  /** Public sign-up (`/signup`, a trial account); false: only first run and admins create accounts. */
  SIGNUP_ENABLED: z.enum(['true', 'false']).default('true'),
  /** Sign-ups per IP address per hour. */
  SIGNUP_LIMIT_PER_IP: int(5, 1),
  /** Password-reset requests per e-mail address per hour (known or not). */
  RESET_LIMIT_PER_ADDRESS: int(3, 1),
  /** Password-reset requests per IP address per hour. */
  RESET_LIMIT_PER_IP: int(10, 1),
  /**
   * Web Push goes to the browsers' push services only; these hosts are allowed besides them, whatever they
   * resolve to (a test push service on 127.0.0.1, a push relay inside the network).
   */
  PUSH_ALLOWED_HOSTS: hostPortList,
  /**
   * Webhooks go to https URLs at public addresses. Hosts allowed besides, over http or https and whatever
   * they resolve to (a test receiver on 127.0.0.1): `host` or `host:port` (no port: 443), comma-separated.
   */
  WEBHOOK_ALLOWED_HOSTS: hostPortList,
  /**
   * Single sign-on: an OpenID Connect issuer or a SAML identity provider is reached over https at a public
   * address. Hosts allowed besides, over http or https (an identity provider inside the network, a test one
   * on 127.0.0.1): `host` or `host:port` (no port: 443), comma-separated.
   */
  SSO_ALLOWED_HOSTS: hostPortList,
  /**
   * SAML single logout: the installation's signing key and certificate (PEM files). With them, LogoutRequests
   * and LogoutResponses sent to identity providers are signed and the SP metadata publishes the certificate;
   * without them they go unsigned (an IdP that requires signed logout messages then refuses them).
   */
  SAML_SP_KEY_FILE: z.string().optional(),
  SAML_SP_CERT_FILE: z.string().optional(),
  /** Multipart requests (uploads) read at once for one account, and in this process; past either: 429. */
  UPLOADS_PER_ACCOUNT: int(4, 1, 1000),
  UPLOADS_PER_PROCESS: int(16, 1, 10_000),
  /**
   * Seals secrets kept in the database (mailbox passwords) with AES-256-GCM. Unset: mailboxes cannot be
   * added or changed, and none is fetched.
   */
  SECRETS_KEY: secretsKey,
  /** How often each mailbox is polled besides IMAP IDLE (a missed IDLE notice is picked up by then). */
  EMAIL_POLL_MS: int(60_000, 50, 86_400_000),
  /**
   * On shutdown, how long requests under way may finish; then their connections are cut, so a client that
   * stalls mid-request cannot hold the process open.
   */
  SHUTDOWN_GRACE_MS: int(10_000, 0, 600_000),
  /**
   * The inbound SMTP listener for forwarded mail (docs/email.md, "In by forwarding"): off unless a port is set
   * (0: any free port, for tests).
   */
  INBOUND_SMTP_PORT: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || n > 65535) {
        ctx.addIssue({ code: 'custom', message: 'must be a whole number from 0 to 65535' });
        return z.NEVER;
      }
      return n;
    }),
  /** Where it listens: loopback by default, behind the installation's own MTA; 0.0.0.0 to take mail directly. */
  INBOUND_SMTP_HOST: z.string().min(1).max(253).default('127.0.0.1'),
  /** The domain of the forwarding addresses (its MX points here); default the host of PUBLIC_URL, else localhost. */
  INBOUND_SMTP_DOMAIN: z
    .string()
    .regex(/^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/, 'must be a domain name')
    .optional(),
  /** The largest mail taken (bytes as sent, so base64 attachments count a third more); larger ones get 552. */
  INBOUND_SMTP_MAX_BYTES: int(31_457_280, 1024, 1_073_741_824),
  /**
   * STARTTLS on the listener: its key and certificate (PEM files, both or neither, checked at start). With
   * them a sender may upgrade the connection; without them the listener speaks plain SMTP only.
   */
  INBOUND_SMTP_TLS_KEY_FILE: z.string().optional(),
  INBOUND_SMTP_TLS_CERT_FILE: z.string().optional(),
  /** Microsoft 365 mailboxes: the Graph API they are read and sent through. */
  GRAPH_BASE_URL: url(['http:', 'https:']).transform((v) =>
    (v ?? 'https://graph.microsoft.com/v1.0').replace(/\/+$/, ''),
  ),
  /** Microsoft 365 mailboxes: where their apps get tokens (`{url}/{tenant}/oauth2/v2.0/token`). */
  GRAPH_LOGIN_URL: url(['http:', 'https:']).transform((v) =>
    (v ?? 'https://login.microsoftonline.com').replace(/\/+$/, ''),
  ),
  /** WhatsApp channels: the Cloud API (Meta's Graph API with its version) messages are sent through. */
  WHATSAPP_API_URL: url(['http:', 'https:']).transform((v) =>
    (v ?? 'https://graph.facebook.com/v21.0').replace(/\/+$/, ''),
  ),
  /**
   * Messenger and Instagram channels: the Messenger Platform (Meta's Graph API with its version): replies by
   * `{url}/{page id}/messages` (Instagram: `{url}/me/messages`), the connection test, customers' names.
   */
  MESSENGER_API_URL: url(['http:', 'https:']).transform((v) =>
    (v ?? 'https://graph.facebook.com/v21.0').replace(/\/+$/, ''),
  ),
  /** Telegram channels: the Bot API (`{url}/bot{token}/{method}`). */
  TELEGRAM_API_URL: url(['http:', 'https:']).transform((v) => (v ?? 'https://api.telegram.org').replace(/\/+$/, '')),
  /** LINE channels: the Messaging API (`{url}/v2/bot/...`): replies, pushes, profiles. */
  LINE_API_URL: url(['http:', 'https:']).transform((v) => (v ?? 'https://api.line.me').replace(/\/+$/, '')),
  /** LINE channels: the API customers' files are downloaded from (`{url}/v2/bot/message/{id}/content`). */
  LINE_DATA_API_URL: url(['http:', 'https:']).transform((v) => (v ?? 'https://api-data.line.me').replace(/\/+$/, '')),
  /** SMS channels: a Twilio-compatible Messages API (`{url}/2010-04-01/Accounts/{sid}/Messages.json`). */
  SMS_API_URL: url(['http:', 'https:']).transform((v) => (v ?? 'https://api.twilio.com').replace(/\/+$/, '')),
  /** X channels: the X API (`{url}/2/dm_conversations/...`, `{url}/2/tweets`, `{url}/2/users/me`). */
  X_API_URL: url(['http:', 'https:']).transform((v) => (v ?? 'https://api.x.com').replace(/\/+$/, '')),
});

export type Config = Omit<
  z.infer<typeof ConfigSchema>,
  'TRUST_PROXY' | 'APP_VERSION' | 'SIGNUP_ENABLED' | 'METRICS_PUBLIC' | 'API_DOCS_PUBLIC' | 'INBOUND_SMTP_DOMAIN'
> & {
  INBOUND_SMTP_DOMAIN: string;
  TRUST_PROXY: boolean;
  SIGNUP_ENABLED: boolean;
  METRICS_PUBLIC: boolean;
  API_DOCS_PUBLIC: boolean;
  WEB_DIST: string;
  APP_VERSION: string;
};

export class ConfigError extends Error {}

/**
 * The repository's root: the nearest folder above this module with a workspaces package.json. The same
 * from the TypeScript sources (apps/server/src/platform) and the compiled server (apps/server/dist).
 */
export function repoRoot(from: string = import.meta.dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    try {
      if (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).workspaces) return dir;
    } catch {}
    if (path.dirname(dir) === dir) return path.resolve(from, '../../../..');
  }
}

function packageVersion(root: string): string {
  try {
    return String(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version ?? '0.0.0');
  } catch {
    return '0.0.0';
  }
}

/** Reads the environment once; a bad value throws a one-line error naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`Invalid configuration: ${String(issue?.path[0])} ${issue?.message ?? 'is invalid'}`);
  }
  const c = parsed.data;
  if (c.PAYMENT_PROVIDER === 'stripe' && (!c.STRIPE_SECRET_KEY || !c.STRIPE_WEBHOOK_SECRET))
    throw new ConfigError(
      'Invalid configuration: PAYMENT_PROVIDER stripe needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET',
    );
  const root = repoRoot();
  return {
    ...c,
    TRUST_PROXY: c.TRUST_PROXY === 'true',
    SIGNUP_ENABLED: c.SIGNUP_ENABLED === 'true',
    METRICS_PUBLIC: c.METRICS_PUBLIC === 'true',
    API_DOCS_PUBLIC: c.API_DOCS_PUBLIC === 'true',
    DATA_DIR: path.resolve(c.DATA_DIR),
    WEB_DIST: path.resolve(c.WEB_DIST || path.join(root, 'apps/web/dist')),
    // SHELL-64: the web app compares its build's version with this one and offers the update bar.
    APP_VERSION: c.APP_VERSION || packageVersion(root),
    INBOUND_SMTP_DOMAIN: (
      c.INBOUND_SMTP_DOMAIN || (c.PUBLIC_URL ? new URL(c.PUBLIC_URL).hostname : 'localhost')
    ).toLowerCase(),
  };
}
