// Typed configuration: every environment variable the service reads is read here, validated once at
// start, and reported with a clear message when wrong. The README's configuration table mirrors this.

export interface Config {
  port: number;
  host: string;
  logLevel: string;
  /** Directory for the embedded database (and, later, local asset files). */
  dataDir: string;
  /** When set, PostgreSQL over node-postgres instead of the embedded PGlite. */
  databaseUrl: string | undefined;
  databasePoolMax: number;
  jwtSecret: string | undefined;
  jwksUrl: string | undefined;
  jwtIssuer: string | undefined;
  jwtAudience: string | undefined;
  /** Environment marker in new API keys: bwk_<env>_… */
  apiKeyEnv: 'live' | 'test';
  rateLimitJwtPerMinute: number;
  rateLimitApiKeyPerMinute: number;
  redisUrl: string | undefined;
  bodyLimitBytes: number;
  /** Seconds SIGTERM waits for in-flight requests before closing anyway. */
  shutdownGraceSeconds: number;
}

export class ConfigError extends Error {}

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

export function loadConfig(env: Env = process.env): Config {
  const apiKeyEnv = str(env, 'API_KEY_ENV') ?? 'live';
  if (apiKeyEnv !== 'live' && apiKeyEnv !== 'test') {
    throw new ConfigError(`API_KEY_ENV must be "live" or "test", got "${apiKeyEnv}"`);
  }
  const jwtSecret = str(env, 'AUTH_JWT_SECRET');
  if (jwtSecret !== undefined && Buffer.byteLength(jwtSecret) < 32) {
    throw new ConfigError('AUTH_JWT_SECRET must be at least 32 bytes long (HS256 needs a 256-bit key)');
  }
  const logLevel = str(env, 'LOG_LEVEL') ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "${logLevel}"`);
  }
  return {
    port: int(env, 'PORT', 8080, 0, 65535),
    host: str(env, 'HOST') ?? '127.0.0.1',
    logLevel,
    dataDir: str(env, 'DATA_DIR') ?? './data',
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databasePoolMax: int(env, 'DATABASE_POOL_MAX', 10, 1, 1000),
    jwtSecret,
    jwksUrl: url(env, 'AUTH_JWKS_URL', ['http:', 'https:']),
    jwtIssuer: str(env, 'AUTH_ISSUER'),
    jwtAudience: str(env, 'AUTH_AUDIENCE'),
    apiKeyEnv,
    rateLimitJwtPerMinute: int(env, 'RATE_LIMIT_JWT_PER_MINUTE', 200, 1, 10_000_000),
    rateLimitApiKeyPerMinute: int(env, 'RATE_LIMIT_API_KEY_PER_MINUTE', 1000, 1, 10_000_000),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 100 * 1024 * 1024),
    shutdownGraceSeconds: int(env, 'SHUTDOWN_GRACE_SECONDS', 10, 0, 3600),
  };
}
