// Typed configuration: every environment variable the service reads is read here, validated once at
// start, and reported with a clear message when wrong. The README's configuration table mirrors this.
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A board's bounds, checked by src/access/board-bounds.ts. */
export interface BoardBounds {
  maxNodes: number;
  maxEdges: number;
  maxDataBytes: number;
  /** Bytes of asset files on one board. */
  maxAssetBytes: number;
  /** The board owner's quotas (src/access/user-quota.ts), checked by the same writes. */
  owner: UserQuotas;
}

/** A user's quotas, checked by src/access/user-quota.ts. */
export interface UserQuotas {
  maxBoards: number;
  maxStoredBytes: number;
}

export interface Config {
  port: number;
  host: string;
  /** Fastify's trustProxy: which peers' X-Forwarded-For/-Proto/-Host are believed (TRUST_PROXY). */
  trustProxy: boolean | string;
  logLevel: string;
  /** Directory for the embedded database (and, later, local asset files). */
  dataDir: string;
  /** When set, PostgreSQL over node-postgres instead of the embedded PGlite. */
  databaseUrl: string | undefined;
  databasePoolMax: number;
  /** Most database connections one user's requests hold at once (DATABASE_CONNECTIONS_PER_USER; src/db/fair-pool.ts). */
  databaseConnectionsPerUser: number;
  /** Named prepared statements on DATABASE_URL (on by default; see prepared-pool.ts). */
  databasePreparedStatements: boolean;
  /** Budget of the board-list page cache (src/boards/list-cache.ts), in bytes; 0 turns it off. */
  boardListCacheBytes: number;
  jwtSecret: string | undefined;
  jwksUrl: string | undefined;
  jwtIssuer: string | undefined;
  jwtAudience: string | undefined;
  /** Environment marker in new API keys: bwk_<env>_… */
  apiKeyEnv: 'live' | 'test';
  rateLimitJwtPerMinute: number;
  rateLimitApiKeyPerMinute: number;
  /** Requests per minute of all of one user's API keys together (so more keys do not mean more requests). */
  rateLimitUserPerMinute: number;
  /** Most live (unrevoked, unexpired) API keys one user may hold; creating another is 409. */
  apiKeysMaxPerUser: number;
  redisUrl: string | undefined;
  bodyLimitBytes: number;
  /** Seconds SIGTERM waits for in-flight requests before closing anyway. */
  shutdownGraceSeconds: number;
  /** Embeddings: local (default, no network) or openai (an OpenAI-compatible /embeddings endpoint). */
  embeddingsProvider: 'local' | 'openai';
  embeddingsModel: string;
  embeddingsDimensions: number;
  embeddingsBatchSize: number;
  /** The embeddings endpoint (OPENAI_BASE_URL, OPENAI_API_KEY: shared with the openai LLM provider). */
  embeddingsBaseUrl: string;
  embeddingsApiKey: string | undefined;
  /** Document chunking, in characters. */
  chunkSize: number;
  chunkOverlap: number;
  /** Background jobs: lease length, attempts before a job fails, idle poll interval. */
  jobLeaseSeconds: number;
  jobMaxAttempts: number;
  jobPollMs: number;
  /** Jobs one process runs at once (JOB_CONCURRENCY); 0: none (another process on the database runs them). */
  jobConcurrency: number;
  /** Unfinished jobs a user may have; one more is refused with 429 (JOB_MAX_QUEUED_PER_USER). */
  jobMaxQueuedPerUser: number;
  /** Searches over at most this many chunks scan exactly; larger ones use the HNSW index. */
  searchExactMaxChunks: number;
  /** A board's most nodes, edges, bytes of node and edge data, bytes of asset files (BOARD_MAX_NODES, …_EDGES, …_DATA_BYTES, …_ASSET_BYTES). */
  boardBounds: BoardBounds;
  /** A user's most boards and bytes stored on them (USER_MAX_BOARDS, USER_MAX_STORED_BYTES). */
  userQuotas: UserQuotas;
  /** Expensive work (full reads, MCP tool calls, batches) per user and in all (HEAVY_WORK_*; src/lib/heavy-work.ts). */
  heavyWork: HeavyWorkConfig;
  /** Largest asset upload in bytes (ASSET_MAX_BYTES). */
  assetMaxBytes: number;
  /** Base of asset file URLs (PUBLIC_BASE_URL); unset: taken from each request's Host. */
  publicBaseUrl: string | undefined;
  /** Chat replies: local (grounded extractive, no network), openai (OPENAI_BASE_URL, OPENAI_API_KEY) or anthropic. */
  llmProvider: 'local' | 'openai' | 'anthropic';
  llmModel: string | undefined;
  /** Chat Completions endpoint of the openai provider; unset: the SDK default (api.openai.com). */
  openaiBaseUrl: string | undefined;
  openaiApiKey: string | undefined;
  anthropicApiKey: string | undefined;
  anthropicBaseUrl: string | undefined;
  /** Token budget of a chat request's context (system prompt, grounding, memory, history). */
  llmContextTokens: number;
  /** Most tokens a reply may have. */
  llmMaxTokens: number;
  /** A provider silent for this long (before or between deltas) ends the reply with an error. */
  llmTimeoutMs: number;
  llmMaxRetries: number;
  /** Interval of the keep-alive comment lines on a streamed reply. */
  sseKeepAliveMs: number;
  /** Days a board's events are kept for streams to resume from (EVENT_RETENTION_DAYS). */
  eventRetentionDays: number;
  /** Board history (src/history/): the least time between two automatic snapshots of a changing board, and how long unnamed versions are kept. */
  history: { snapshotIntervalSeconds: number; retentionDays: number };
  /** Event streams one user may hold open on one instance (EVENT_STREAMS_PER_USER). */
  eventStreamsPerUser: number;
  /** S3-compatible asset storage when S3_BUCKET is set; otherwise files live under DATA_DIR/files. */
  s3: S3Config | undefined;
  /** Webhooks' endpoints and their sender (WEBHOOK_*, WEBHOOKS_MAX_PER_USER). */
  webhooks: WebhookConfig;
  /** Reading what a url node points at (src/documents/reading/). */
  reading: ReadingConfig;
  /** External sign-in (OpenID Connect) for the web app; when set, local accounts are off. */
  oidc: OidcConfig | undefined;
  /** Whether POST /v1/auth/signup creates local accounts (local mode only). */
  localSignup: boolean;
  /** Lifetime of the service's own access tokens (local accounts). */
  accessTokenTtlSeconds: number;
  /** log2 of scrypt's cost N for new password hashes (AUTH_SCRYPT_COST; src/accounts/password.ts). */
  scryptCost: number;
  /** Lifetime of a refresh token (renewed with each rotation). */
  refreshTokenTtlDays: number;
  /** Seconds after its first use in which a spent refresh token still refreshes (a reload, two tabs). */
  refreshReuseSeconds: number;
  /** Login and sign-up attempts per minute per client IP. */
  authLoginPerMinute: number;
  /** The built web app served at / (web/dist of the package). */
  webDistDir: string;
  /** Whether the web build's `.map` source maps are served (WEB_SOURCE_MAPS; off: 404). */
  webSourceMaps: boolean;
}

export interface HeavyWorkConfig {
  /** Expensive operations one user runs at once (HEAVY_WORK_PER_USER). */
  perUser: number;
  /** Expensive operations this instance runs at once over all users, handed out in turn (HEAVY_WORK_CONCURRENCY). */
  concurrency: number;
  /** Expensive operations one user may have waiting; one more is 429 (HEAVY_WORK_QUEUE_PER_USER). */
  queuePerUser: number;
  /** Longest one waits before it is 429 (HEAVY_WORK_WAIT_SECONDS), in milliseconds. */
  maxWaitMs: number;
  /** Longest each of its statements lets other requests' statements go first (HEAVY_WORK_YIELD_MS; src/db/fair-pool.ts). */
  yieldMs: number;
}

export interface OidcConfig {
  issuer: string;
  clientId: string;
  /** Required `aud` of access tokens; unset: `aud` must contain the client id or `azp` must equal it. */
  audience: string | undefined;
  scope: string;
}

export interface S3Config {
  bucket: string;
  endpoint: string | undefined;
  region: string;
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  forcePathStyle: boolean;
}

export interface WebhookConfig {
  /** Host names (lower-case) an endpoint may name although they are private or loopback, and reach over http (WEBHOOK_ALLOWED_HOSTS). */
  allowedHosts: string[];
  /** The waits before each retry of a failed delivery, in ms; after the last the delivery fails and its webhook is disabled (WEBHOOK_RETRY_SCHEDULE). */
  retryScheduleMs: number[];
  /** How long one attempt may take, connecting included (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /** How often idle senders look for due retries (WEBHOOK_POLL_MS); new deliveries wake them at once. */
  pollMs: number;
  /** Deliveries this process sends at once, to different webhooks (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** Most webhooks one user may have; creating another is 409 (WEBHOOKS_MAX_PER_USER). */
  maxPerUser: number;
}

export interface ReadingConfig {
  /** Hosts a page may be fetched from although private or loopback, or over http (OUTBOUND_ALLOWED_HOSTS, alias WEBHOOK_ALLOWED_HOSTS). */
  allowedHosts: string[];
  /** How long reading one page may take, redirects and body included (READ_PAGE_TIMEOUT_MS). */
  timeoutMs: number;
}

export class ConfigError extends Error {}

/** `iss` of the service's own access tokens; no external issuer may use it. */
export const LOCAL_TOKEN_ISSUER = 'board-workspace';

type Env = Record<string, string | undefined>;

function str(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return raw;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = str(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** proxy-addr's names for address ranges, accepted in TRUST_PROXY beside addresses and CIDRs. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY: unset or false (the default) believes no X-Forwarded-* header; a comma-separated
 * list trusts peers at those addresses, CIDR ranges or named ranges (loopback, linklocal,
 * uniquelocal); true trusts any peer (only behind a proxy that overwrites the headers). No hop
 * count: Fastify 5 treats one as trusting nobody. Checked here so a typo fails at start.
 */
function trustProxy(env: Env): boolean | string {
  const raw = str(env, 'TRUST_PROXY');
  if (raw === undefined || raw.toLowerCase() === 'false') return false;
  if (raw.toLowerCase() === 'true') return true;
  const parts = raw.split(',').map((part) => part.trim());
  for (const part of parts) {
    const [address, bits, extra] = part.split('/');
    const family = isIP(address ?? '');
    const validBits = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!PROXY_RANGE_NAMES.has(part) && (family === 0 || !validBits || extra !== undefined)) {
      throw new ConfigError(
        `TRUST_PROXY must be true, false, or a comma-separated list of addresses, CIDR ranges, loopback, linklocal or uniquelocal; "${part}" is none of these`,
      );
    }
  }
  return parts.join(',');
}

function s3Config(env: Env): S3Config | undefined {
  const bucket = str(env, 'S3_BUCKET');
  if (bucket === undefined) return undefined;
  const accessKeyId = str(env, 'S3_ACCESS_KEY_ID');
  const secretAccessKey = str(env, 'S3_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together (or both left unset for the SDK default chain)');
  }
  return {
    bucket,
    endpoint: url(env, 'S3_ENDPOINT', ['http:', 'https:']),
    region: str(env, 'S3_REGION') ?? 'us-east-1',
    accessKeyId,
    secretAccessKey,
    forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', false),
  };
}

export function loadConfig(env: Env = process.env): Config {
  const apiKeyEnv = str(env, 'API_KEY_ENV') ?? 'live';
  if (apiKeyEnv !== 'live' && apiKeyEnv !== 'test') {
    throw new ConfigError(`API_KEY_ENV must be "live" or "test", got "${apiKeyEnv}"`);
  }
  const jwtSecret = str(env, 'AUTH_JWT_SECRET');
  if (jwtSecret !== undefined && Buffer.byteLength(jwtSecret) < 32) {
    throw new ConfigError('AUTH_JWT_SECRET must be at least 32 bytes long (HS256 needs a 256-bit key)');
  }
  // A thousand boards is far beyond what a person makes by hand, and stops a script duplicating in
  // a loop. 5 GiB of node data, files and chunk text holds five boards filled to their file bound,
  // or hundreds of typical boards, and keeps one account from filling a small server's disk; a
  // server for one person or a team raises it.
  const userQuotas: UserQuotas = {
    maxBoards: int(env, 'USER_MAX_BOARDS', 1000, 1, 10_000_000),
    maxStoredBytes: int(env, 'USER_MAX_STORED_BYTES', 5 * 1024 ** 3, 1, Number.MAX_SAFE_INTEGER),
  };
  const logLevel = str(env, 'LOG_LEVEL') ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "${logLevel}"`);
  }
  const embeddingsProvider = str(env, 'EMBEDDINGS_PROVIDER') ?? 'local';
  if (embeddingsProvider !== 'local' && embeddingsProvider !== 'openai') {
    throw new ConfigError(`EMBEDDINGS_PROVIDER must be "local" or "openai", got "${embeddingsProvider}"`);
  }
  const chunkSize = int(env, 'CHUNK_SIZE', 1000, 100, 100_000);
  const chunkOverlap = int(env, 'CHUNK_OVERLAP', 150, 0, 50_000);
  if (chunkOverlap * 2 > chunkSize)
    throw new ConfigError(`CHUNK_OVERLAP must be at most half of CHUNK_SIZE (${chunkSize}), got ${chunkOverlap}`);
  const databasePoolMax = int(env, 'DATABASE_POOL_MAX', 10, 1, 1000);
  return {
    port: int(env, 'PORT', 8080, 0, 65535),
    host: str(env, 'HOST') ?? '127.0.0.1',
    trustProxy: trustProxy(env),
    logLevel,
    dataDir: str(env, 'DATA_DIR') ?? './data',
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databasePoolMax,
    databaseConnectionsPerUser: int(env, 'DATABASE_CONNECTIONS_PER_USER', Math.ceil(databasePoolMax / 2), 1, 1000),
    databasePreparedStatements: bool(env, 'DATABASE_PREPARED_STATEMENTS', true),
    boardListCacheBytes: int(env, 'BOARD_LIST_CACHE_MB', 32, 0, 64 * 1024) * 1024 * 1024,
    jwtSecret,
    jwksUrl: url(env, 'AUTH_JWKS_URL', ['http:', 'https:']),
    jwtIssuer: str(env, 'AUTH_ISSUER'),
    jwtAudience: str(env, 'AUTH_AUDIENCE'),
    apiKeyEnv,
    rateLimitJwtPerMinute: int(env, 'RATE_LIMIT_JWT_PER_MINUTE', 200, 1, 10_000_000),
    rateLimitApiKeyPerMinute: int(env, 'RATE_LIMIT_API_KEY_PER_MINUTE', 1000, 1, 10_000_000),
    rateLimitUserPerMinute: int(env, 'RATE_LIMIT_USER_PER_MINUTE', 3000, 1, 10_000_000),
    apiKeysMaxPerUser: int(env, 'API_KEYS_MAX_PER_USER', 100, 1, 100_000),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 100 * 1024 * 1024),
    shutdownGraceSeconds: int(env, 'SHUTDOWN_GRACE_SECONDS', 10, 0, 3600),
    // Sized so the full board read stays within tens of megabytes: 10,000 nodes and 20,000 edges is
    // the benchmark board (bench/), 50 MiB of data about 100 times a typical board's.
    boardBounds: {
      maxNodes: int(env, 'BOARD_MAX_NODES', 10_000, 1, 1_000_000),
      maxEdges: int(env, 'BOARD_MAX_EDGES', 20_000, 0, 2_000_000),
      maxDataBytes: int(env, 'BOARD_MAX_DATA_BYTES', 50 * 1024 * 1024, 1024, 2 * 1024 * 1024 * 1024),
      maxAssetBytes: int(env, 'BOARD_MAX_ASSET_BYTES', 1024 * 1024 * 1024, 1, 1024 * 1024 * 1024 * 1024),
      owner: userQuotas,
    },
    userQuotas,
    heavyWork: {
      perUser: int(env, 'HEAVY_WORK_PER_USER', 1, 1, 1000),
      concurrency: int(env, 'HEAVY_WORK_CONCURRENCY', 16, 1, 10_000),
      queuePerUser: int(env, 'HEAVY_WORK_QUEUE_PER_USER', 16, 0, 100_000),
      maxWaitMs: int(env, 'HEAVY_WORK_WAIT_SECONDS', 30, 1, 3600) * 1000,
      yieldMs: int(env, 'HEAVY_WORK_YIELD_MS', 100, 0, 10_000),
    },
    assetMaxBytes: int(env, 'ASSET_MAX_BYTES', 50 * 1024 * 1024, 1, 5 * 1024 * 1024 * 1024),
    publicBaseUrl: url(env, 'PUBLIC_BASE_URL', ['http:', 'https:'])?.replace(/\/+$/, ''),
    s3: s3Config(env),
    embeddingsProvider,
    embeddingsModel: str(env, 'EMBEDDINGS_MODEL') ?? 'text-embedding-3-small',
    // HNSW indexes take at most 2,000 dimensions.
    embeddingsDimensions: int(env, 'EMBEDDINGS_DIMENSIONS', 1536, 1, 2000),
    embeddingsBatchSize: int(env, 'EMBEDDINGS_BATCH_SIZE', 96, 1, 2048),
    // Embeddings may come from another server than chat replies (TEI or Ollama beside a hosted
    // LLM), so they have their own address and key, falling back to the OpenAI ones.
    embeddingsBaseUrl:
      url(env, 'EMBEDDINGS_BASE_URL', ['http:', 'https:']) ??
      url(env, 'OPENAI_BASE_URL', ['http:', 'https:']) ??
      'https://api.openai.com/v1',
    embeddingsApiKey: str(env, 'EMBEDDINGS_API_KEY') ?? str(env, 'OPENAI_API_KEY'),
    chunkSize,
    chunkOverlap,
    jobLeaseSeconds: int(env, 'JOB_LEASE_SECONDS', 60, 5, 3600),
    jobMaxAttempts: int(env, 'JOB_MAX_ATTEMPTS', 3, 1, 100),
    jobPollMs: int(env, 'JOB_POLL_MS', 1000, 10, 60_000),
    jobConcurrency: int(env, 'JOB_CONCURRENCY', defaultJobConcurrency(env), 0, 64),
    jobMaxQueuedPerUser: int(env, 'JOB_MAX_QUEUED_PER_USER', 200, 1, 1_000_000),
    searchExactMaxChunks: int(env, 'SEARCH_EXACT_MAX_CHUNKS', 3000, 0, 10_000_000),
    eventRetentionDays: int(env, 'EVENT_RETENTION_DAYS', 7, 1, 3650),
    eventStreamsPerUser: int(env, 'EVENT_STREAMS_PER_USER', 100, 1, 100_000),
    history: {
      snapshotIntervalSeconds: int(env, 'HISTORY_SNAPSHOT_INTERVAL_SECONDS', 600, 1, 86_400),
      retentionDays: int(env, 'HISTORY_RETENTION_DAYS', 30, 1, 3650),
    },
    webhooks: webhookConfig(env),
    reading: { allowedHosts: outboundAllowedHosts(env), timeoutMs: int(env, 'READ_PAGE_TIMEOUT_MS', 15_000, 100, 120_000) },
    ...llmConfig(env),
    ...authConfig(env),
  };
}

/**
 * One job per core, at most four, on PostgreSQL. On the embedded database two: every statement
 * shares its one connection and the local embedder shares the one JavaScript thread, so more slots
 * add no throughput, but a second slot lets a small job run beside a large one instead of after it.
 */
function defaultJobConcurrency(env: Env): number {
  const cores = os.availableParallelism();
  return str(env, 'DATABASE_URL') === undefined ? Math.min(2, cores) : Math.max(1, Math.min(4, cores));
}

function authConfig(env: Env) {
  const issuer = url(env, 'AUTH_OIDC_ISSUER', ['http:', 'https:']);
  const clientId = str(env, 'AUTH_OIDC_CLIENT_ID');
  if ((issuer === undefined) !== (clientId === undefined)) {
    throw new ConfigError('AUTH_OIDC_ISSUER and AUTH_OIDC_CLIENT_ID must be set together (or both left unset for local accounts)');
  }
  if (str(env, 'AUTH_ISSUER') === LOCAL_TOKEN_ISSUER) {
    throw new ConfigError(`AUTH_ISSUER must not be "${LOCAL_TOKEN_ISSUER}": that is the issuer of the service's own tokens`);
  }
  return {
    oidc:
      issuer && clientId
        ? { issuer, clientId, audience: str(env, 'AUTH_OIDC_AUDIENCE'), scope: str(env, 'AUTH_OIDC_SCOPE') ?? 'openid profile email' }
        : undefined,
    localSignup: bool(env, 'AUTH_LOCAL_SIGNUP', true),
    accessTokenTtlSeconds: int(env, 'AUTH_ACCESS_TOKEN_TTL_SECONDS', 900, 10, 86_400),
    // log2 of scrypt's N for new password hashes: 15 is OWASP's minimum at p=3; below is for tests
    // (a hash carries its parameters, so one made at any setting verifies at any other).
    scryptCost: int(env, 'AUTH_SCRYPT_COST', 15, 10, 18),
    refreshTokenTtlDays: int(env, 'AUTH_REFRESH_TOKEN_TTL_DAYS', 30, 1, 3650),
    refreshReuseSeconds: int(env, 'AUTH_REFRESH_REUSE_SECONDS', 10, 0, 300),
    authLoginPerMinute: int(env, 'AUTH_LOGIN_PER_MINUTE', 10, 1, 10_000_000),
    // Relative to the package root whether this runs from src/ (tsx) or dist/ (built).
    webDistDir: path.resolve(str(env, 'WEB_DIST_DIR') ?? fileURLToPath(new URL('../web/dist', import.meta.url))),
    webSourceMaps: bool(env, 'WEB_SOURCE_MAPS', false),
  };
}

function llmConfig(env: Env) {
  const llmProvider = str(env, 'LLM_PROVIDER') ?? 'local';
  if (llmProvider !== 'local' && llmProvider !== 'openai' && llmProvider !== 'anthropic') {
    throw new ConfigError(`LLM_PROVIDER must be local, openai or anthropic; got "${llmProvider}"`);
  }
  const openaiApiKey = str(env, 'OPENAI_API_KEY');
  const anthropicApiKey = str(env, 'ANTHROPIC_API_KEY');
  const llmModel = str(env, 'LLM_MODEL');
  if (llmProvider === 'openai' && openaiApiKey === undefined) throw new ConfigError('LLM_PROVIDER=openai needs OPENAI_API_KEY');
  if (llmProvider === 'anthropic' && anthropicApiKey === undefined) throw new ConfigError('LLM_PROVIDER=anthropic needs ANTHROPIC_API_KEY');
  if (llmProvider !== 'local' && llmModel === undefined) throw new ConfigError(`LLM_PROVIDER=${llmProvider} needs LLM_MODEL`);
  return {
    llmProvider: llmProvider as Config['llmProvider'],
    llmModel,
    openaiBaseUrl: url(env, 'OPENAI_BASE_URL', ['http:', 'https:']),
    openaiApiKey,
    anthropicApiKey,
    anthropicBaseUrl: url(env, 'ANTHROPIC_BASE_URL', ['http:', 'https:']),
    llmContextTokens: int(env, 'LLM_CONTEXT_TOKENS', 8000, 200, 2_000_000),
    llmMaxTokens: int(env, 'LLM_MAX_TOKENS', 1024, 1, 200_000),
    llmTimeoutMs: int(env, 'LLM_TIMEOUT_MS', 60_000, 10, 3_600_000),
    llmMaxRetries: int(env, 'LLM_MAX_RETRIES', 2, 0, 10),
    sseKeepAliveMs: int(env, 'SSE_KEEPALIVE_MS', 15_000, 10, 3_600_000),
  };
}

/** 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h: eleven attempts over about a day. */
const DEFAULT_RETRY_SCHEDULE = '5s,30s,2m,10m,30m,1h,2h,4h,8h,8h';
const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Hosts the service may reach although private or loopback, and over http: webhooks' endpoints and
 * read pages alike. OUTBOUND_ALLOWED_HOSTS and its older name WEBHOOK_ALLOWED_HOSTS are one list
 * (both set: their union).
 */
function outboundAllowedHosts(env: Env): string[] {
  const hosts = [str(env, 'OUTBOUND_ALLOWED_HOSTS'), str(env, 'WEBHOOK_ALLOWED_HOSTS')]
    .flatMap((list) => (list ?? '').split(','))
    .map((host) =>
      host
        .trim()
        .toLowerCase()
        .replace(/^\[(.*)\]$/, '$1'),
    )
    .filter((host) => host !== '');
  for (const host of hosts) {
    if (!/^[a-z0-9.:-]+$/.test(host)) {
      throw new ConfigError(`OUTBOUND_ALLOWED_HOSTS must be a comma-separated list of host names or addresses; "${host}" is not one`);
    }
  }
  return [...new Set(hosts)];
}

function webhookConfig(env: Env): WebhookConfig {
  const raw = str(env, 'WEBHOOK_RETRY_SCHEDULE') ?? DEFAULT_RETRY_SCHEDULE;
  const retryScheduleMs = raw.split(',').map((part) => {
    const match = /^(\d{1,7})(ms|s|m|h)$/.exec(part.trim());
    if (!match) {
      throw new ConfigError(
        `WEBHOOK_RETRY_SCHEDULE must be a comma-separated list of waits such as 5s,30s,2m,1h (units ms, s, m, h); "${part.trim()}" is not one`,
      );
    }
    return Number(match[1]) * DURATION_UNITS_MS[match[2]!]!;
  });
  if (retryScheduleMs.length > 30) throw new ConfigError('WEBHOOK_RETRY_SCHEDULE may list at most 30 waits');
  const allowedHosts = outboundAllowedHosts(env);
  return {
    allowedHosts,
    retryScheduleMs,
    timeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    pollMs: int(env, 'WEBHOOK_POLL_MS', 1000, 10, 60_000),
    concurrency: int(env, 'WEBHOOK_CONCURRENCY', 4, 1, 64),
    maxPerUser: int(env, 'WEBHOOKS_MAX_PER_USER', 20, 1, 10_000),
  };
}
