// Operator command line for API keys, working on the database directly (the first key of a user
// cannot come from the API, which needs a key or a JWT to call):
//
//   npm run cli -- keys create --user <uuid> --name <name> --scopes read,write,admin [--expires-at <iso>]
//   npm run cli -- keys list --user <uuid>
//   npm run cli -- keys revoke --id <key id>
//
// `--subject <sub>` may replace `--user` to name an identity-provider subject that is not a UUID.
// The raw key of `keys create` is the only thing written to stdout, so scripts can capture it;
// messages go to stderr (`npm run --silent cli -- …` also drops npm's banner). Exit codes: 0 done,
// 1 failed (database unavailable, key not found), 2 wrong arguments or configuration.
import { parseArgs } from 'node:util';
import { createApiKey, listAllApiKeys, revokeApiKeyById, type ApiKeyView } from './auth/api-key-service.js';
import { scopes as allScopes, type Scope } from './auth/principal.js';
import { ensureUser, findUserBySubject, userExists } from './auth/users.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openDatabase, type DatabaseHandle } from './db/database.js';
import type { Db } from './db/schema.js';
import { ApiError } from './errors.js';
import { isUuid } from './lib/ids.js';

const USAGE = `Usage:
  npm run cli -- keys create --user <uuid> --name <name> --scopes <read,write,admin> [--expires-at <ISO 8601>]
  npm run cli -- keys list --user <uuid>
  npm run cli -- keys revoke --id <key id>

Options:
  --user <uuid>        the user's id (created on first sight; a JWT with this sub is the same user)
  --subject <sub>      instead of --user: an identity-provider subject such as "auth0|abc"
  --name <name>        a label for the key, 1..100 characters
  --scopes <list>      comma-separated subset of read, write, admin
  --expires-at <time>  optional future time with a time zone, e.g. 2030-01-01T00:00:00Z
  --id <uuid>          the key to revoke
  -h, --help           show this help

The database is the one the server uses (DATABASE_URL, else the embedded one in DATA_DIR).`;

class UsageError extends Error {}

/** A user named by id (--user) or by identity-provider subject (--subject). */
type Who = { id: string } | { subject: string };

type Command =
  | { kind: 'create'; who: Who; name: string; scopes: Scope[]; expiresAt?: string }
  | { kind: 'list'; who: Who }
  | { kind: 'revoke'; id: string }
  | { kind: 'help' };

const optionSpec = {
  user: { type: 'string' },
  subject: { type: 'string' },
  name: { type: 'string' },
  scopes: { type: 'string' },
  'expires-at': { type: 'string' },
  id: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = { [K in keyof typeof optionSpec]?: (typeof optionSpec)[K]['type'] extends 'string' ? string : boolean };

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

function only(values: Values, allowed: (keyof Values)[], command: string): void {
  for (const name of Object.keys(values) as (keyof Values)[]) {
    if (values[name] !== undefined && !allowed.includes(name)) throw new UsageError(`--${name} does not apply to "keys ${command}"`);
  }
}

function whoOf(values: Values): Who {
  if (values.user !== undefined && values.subject !== undefined) throw new UsageError('Give either --user or --subject, not both');
  if (values.user !== undefined) {
    if (!isUuid(values.user)) throw new UsageError(`--user must be a user id (UUID), got "${values.user}"; use --subject for an identity-provider subject`);
    return { id: values.user.toLowerCase() };
  }
  if (values.subject !== undefined) {
    if (values.subject.trim() === '' || values.subject.length > 255) throw new UsageError('--subject must be 1..255 characters');
    return { subject: values.subject };
  }
  throw new UsageError('--user <uuid> is required');
}

function parseScopes(raw: string | undefined): Scope[] {
  if (raw === undefined) throw new UsageError('--scopes is required, e.g. --scopes read,write');
  const parts = raw.split(',').map((s) => s.trim());
  const unknown = parts.filter((s) => !(allScopes as readonly string[]).includes(s));
  if (parts.length === 0 || unknown.length > 0) {
    throw new UsageError(`--scopes must be a comma-separated list of ${allScopes.join(', ')}; "${unknown.join(',') || raw}" is not a scope`);
  }
  return allScopes.filter((s) => parts.includes(s));
}

function parseExpiresAt(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const time = Date.parse(raw);
  if (!ISO_WITH_ZONE.test(raw) || Number.isNaN(time)) {
    throw new UsageError(`--expires-at must be an ISO 8601 time with a time zone, e.g. 2030-01-01T00:00:00Z; got "${raw}"`);
  }
  if (time <= Date.now()) throw new UsageError(`--expires-at must be in the future, got ${raw}`);
  return new Date(time).toISOString();
}

export function parseCommand(argv: string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: optionSpec, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const values = parsed.values as Values;
  const [group, command, ...rest] = parsed.positionals;
  if (values.help) return { kind: 'help' };
  if (group !== 'keys') throw new UsageError(group === undefined ? 'Missing command' : `Unknown command "${group}"`);
  if (rest.length > 0) throw new UsageError(`Unexpected argument "${rest[0]}"`);
  switch (command) {
    case 'create': {
      only(values, ['user', 'subject', 'name', 'scopes', 'expires-at'], command);
      const who = whoOf(values);
      const name = values.name;
      if (name === undefined) throw new UsageError('--name is required');
      if (name.trim() === '' || name.length > 100) throw new UsageError('--name must be 1..100 characters and not blank');
      return { kind: 'create', who, name, scopes: parseScopes(values.scopes), expiresAt: parseExpiresAt(values['expires-at']) };
    }
    case 'list':
      only(values, ['user', 'subject'], command);
      return { kind: 'list', who: whoOf(values) };
    case 'revoke':
      only(values, ['id'], command);
      if (values.id === undefined) throw new UsageError('--id <key id> is required');
      if (!isUuid(values.id)) throw new UsageError(`--id must be an API key id (UUID), got "${values.id}"`);
      return { kind: 'revoke', id: values.id.toLowerCase() };
    default:
      throw new UsageError(command === undefined ? 'Missing keys command: create, list or revoke' : `Unknown keys command "${command}"`);
  }
}

/** The user's id, or undefined for a user never seen. */
async function findUser(db: Db, who: Who): Promise<string | undefined> {
  if ('id' in who) return (await userExists(db, who.id)) ? who.id : undefined;
  return findUserBySubject(db, who.subject);
}

/** The user's id; a user seen for the first time is created. */
async function findOrCreateUser(db: Db, who: Who): Promise<string> {
  return (await findUser(db, who)) ?? ensureUser(db, 'id' in who ? who.id : who.subject);
}

const iso = (d: Date | null): string => (d ? d.toISOString() : '-');

function status(key: ApiKeyView): string {
  if (key.revoked_at) return 'revoked';
  if (key.expires_at && key.expires_at.getTime() <= Date.now()) return 'expired';
  return 'active';
}

async function run(command: Exclude<Command, { kind: 'help' }>, database: DatabaseHandle, config: Config): Promise<number> {
  const { db } = database;
  switch (command.kind) {
    case 'create': {
      const userId = await findOrCreateUser(db, command.who);
      const key = await createApiKey(db, userId, { name: command.name, scopes: command.scopes, expires_at: command.expiresAt }, config.apiKeyEnv);
      process.stdout.write(`${key.raw_key}\n`);
      process.stderr.write(
        `Created API key ${key.id} "${key.name}" for user ${userId} with scopes ${key.scopes.join(',')}` +
          `${key.expires_at ? `, expiring ${iso(key.expires_at)}` : ''}. It is shown only once: store it now.\n`,
      );
      return 0;
    }
    case 'list': {
      const userId = await findUser(db, command.who);
      const keys = userId ? await listAllApiKeys(db, userId) : [];
      process.stdout.write(['id', 'prefix', 'name', 'scopes', 'status', 'created_at', 'expires_at', 'last_used_at'].join('\t') + '\n');
      for (const k of keys) {
        process.stdout.write([k.id, k.prefix, k.name, k.scopes.join(','), status(k), iso(k.created_at), iso(k.expires_at), iso(k.last_used_at)].join('\t') + '\n');
      }
      process.stderr.write(`${keys.length} API key(s)${userId ? ` of user ${userId}` : '; no such user'}\n`);
      return 0;
    }
    case 'revoke': {
      const before = Date.now();
      const key = await revokeApiKeyById(db, command.id);
      if (!key) {
        process.stderr.write(`Error: no API key with id ${command.id}\n`);
        return 1;
      }
      const already = key.revoked_at !== null && key.revoked_at.getTime() < before;
      process.stderr.write(already ? `API key ${key.id} was already revoked at ${iso(key.revoked_at)}\n` : `Revoked API key ${key.id} "${key.name}"\n`);
      return 0;
    }
  }
}

async function main(argv: string[]): Promise<number> {
  let command: Command;
  let config: Config;
  try {
    command = parseCommand(argv);
    if (command.kind === 'help') {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    config = loadConfig();
  } catch (error) {
    if (error instanceof UsageError) process.stderr.write(`Error: ${error.message}\n\n${USAGE}\n`);
    else if (error instanceof ConfigError) process.stderr.write(`Configuration error: ${error.message}\n`);
    else throw error;
    return 2;
  }

  let database: DatabaseHandle;
  try {
    database = await openDatabase(config);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/in use by process/.test(message)) {
      process.stderr.write(
        `Error: ${message}. A running server holds the embedded database in DATA_DIR (${config.dataDir}); ` +
          'stop it first, or create the key through the API (POST /v1/me/api-keys with an admin key or a JWT).\n',
      );
    } else {
      process.stderr.write(`Error: cannot open the database (${config.databaseUrl ? 'DATABASE_URL' : `embedded, in ${config.dataDir}`}): ${message}\n`);
    }
    return 1;
  }
  try {
    return await run(command, database, config);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    process.stderr.write(`Error: ${error.message}\n`);
    return error.status >= 500 ? 1 : 2;
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
