// Operator command line for API keys and local accounts, working on the database directly (the
// first key of a user cannot come from the API, which needs a key or a JWT to call; with
// AUTH_LOCAL_SIGNUP=false this is the only way to make a local account):
//
//   npm run cli -- keys create --user <uuid> --name <name> --scopes read,write,admin [--expires-at <iso>]
//   npm run cli -- keys list --user <uuid>
//   npm run cli -- keys revoke --id <key id>
//   npm run cli -- accounts create --email <email>          (password on stdin, else generated)
//   npm run cli -- accounts set-password --email <email>    (likewise; ends the account's sign-ins)
//   npm run cli -- accounts list
//
// `--subject <sub>` may replace `--user` to name an identity-provider subject that is not a UUID.
// Passwords are never arguments (they would show in shell history and `ps`): the first line of a
// piped stdin, or, when stdin is a terminal or empty, a generated one printed once. stdout carries
// only what a script needs (the raw key; the account's id, email and any generated password; the
// listings); messages go to stderr (`npm run --silent cli -- …` also drops npm's banner). Exit
// codes: 0 done, 1 failed (database unavailable, key or account not found), 2 wrong arguments,
// input or configuration.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { AccountService, checkPassword, normaliseEmail, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './accounts/accounts.js';
import { scryptParams } from './accounts/password.js';
import type { ApiKey } from './contract/api-keys.js';
import { scopes as allScopes, type Scope } from './auth/principal.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import type { Db } from './db/schema.js';
import { ApiError } from './errors.js';
import { isUuid } from './lib/ids.js';
// The database's modules (PGlite, node-postgres, Kysely), the API keys' and users' are imported when
// a command runs: help and argument errors load none of them (the CLI tests run dozens such calls).

const USAGE = `Usage:
  npm run cli -- keys create --user <uuid> --name <name> --scopes <read,write,admin> [--expires-at <ISO 8601>]
  npm run cli -- keys list --user <uuid>
  npm run cli -- keys revoke --id <key id>
  npm run cli -- accounts create --email <email>
  npm run cli -- accounts set-password --email <email>
  npm run cli -- accounts list

Options:
  --user <uuid>        the user's id (created on first sight; a JWT with this sub is the same user)
  --subject <sub>      instead of --user: an identity-provider subject such as "auth0|abc"
  --name <name>        a label for the key, 1..100 characters
  --scopes <list>      comma-separated subset of read, write, admin
  --expires-at <time>  optional future time with a time zone, e.g. 2030-01-01T00:00:00Z
  --id <uuid>          the key to revoke
  --email <email>      the local account's email address
  -h, --help           show this help

accounts create and set-password never take the password as an argument. They read the first line
of stdin when it is piped or redirected (${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters), e.g.
  printf '%s\\n' "$PASSWORD" | npm run --silent cli -- accounts create --email a@example.com
and generate a random password when stdin is a terminal or empty. stdout gets one line:
id <TAB> email, plus <TAB> the generated password when there is one (shown only once).
set-password also ends every sign-in of the account (its refresh tokens are revoked).

The database is the one the server uses (DATABASE_URL, else the embedded one in DATA_DIR).`;

class UsageError extends Error {}

/** What a command line reads and writes: the process's own in src/cli.ts. */
export interface CliIo {
  env: Record<string, string | undefined>;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** A user named by id (--user) or by identity-provider subject (--subject). */
type Who = { id: string } | { subject: string };

type Command =
  | { kind: 'keys create'; who: Who; name: string; scopes: Scope[]; expiresAt?: string }
  | { kind: 'keys list'; who: Who }
  | { kind: 'keys revoke'; id: string }
  | { kind: 'accounts create'; email: string }
  | { kind: 'accounts set-password'; email: string }
  | { kind: 'accounts list' }
  | { kind: 'help' };

type Group = 'keys' | 'accounts';

const optionSpec = {
  user: { type: 'string' },
  subject: { type: 'string' },
  name: { type: 'string' },
  scopes: { type: 'string' },
  'expires-at': { type: 'string' },
  id: { type: 'string' },
  email: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = { [K in keyof typeof optionSpec]?: (typeof optionSpec)[K]['type'] extends 'string' ? string : boolean };

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

function only(values: Values, allowed: (keyof Values)[], group: Group, command: string): void {
  for (const name of Object.keys(values) as (keyof Values)[]) {
    if (values[name] !== undefined && !allowed.includes(name)) throw new UsageError(`--${name} does not apply to "${group} ${command}"`);
  }
}

function whoOf(values: Values): Who {
  if (values.user !== undefined && values.subject !== undefined) throw new UsageError('Give either --user or --subject, not both');
  if (values.user !== undefined) {
    if (!isUuid(values.user))
      throw new UsageError(`--user must be a user id (UUID), got "${values.user}"; use --subject for an identity-provider subject`);
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
    throw new UsageError(
      `--scopes must be a comma-separated list of ${allScopes.join(', ')}; "${unknown.join(',') || raw}" is not a scope`,
    );
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

/** The normalised --email; checked here so a bad address fails before stdin or the database. */
function emailOf(values: Values): string {
  if (values.email === undefined) throw new UsageError('--email <email> is required');
  try {
    return normaliseEmail(values.email);
  } catch (error) {
    if (error instanceof ApiError) throw new UsageError(`--email must be an email address, got "${values.email}"`);
    throw error;
  }
}

function parseKeysCommand(command: string | undefined, values: Values): Command {
  switch (command) {
    case 'create': {
      only(values, ['user', 'subject', 'name', 'scopes', 'expires-at'], 'keys', command);
      const who = whoOf(values);
      const name = values.name;
      if (name === undefined) throw new UsageError('--name is required');
      if (name.trim() === '' || name.length > 100) throw new UsageError('--name must be 1..100 characters and not blank');
      return { kind: 'keys create', who, name, scopes: parseScopes(values.scopes), expiresAt: parseExpiresAt(values['expires-at']) };
    }
    case 'list':
      only(values, ['user', 'subject'], 'keys', command);
      return { kind: 'keys list', who: whoOf(values) };
    case 'revoke':
      only(values, ['id'], 'keys', command);
      if (values.id === undefined) throw new UsageError('--id <key id> is required');
      if (!isUuid(values.id)) throw new UsageError(`--id must be an API key id (UUID), got "${values.id}"`);
      return { kind: 'keys revoke', id: values.id.toLowerCase() };
    default:
      throw new UsageError(command === undefined ? 'Missing keys command: create, list or revoke' : `Unknown keys command "${command}"`);
  }
}

function parseAccountsCommand(command: string | undefined, values: Values): Command {
  switch (command) {
    case 'create':
    case 'set-password':
      only(values, ['email'], 'accounts', command);
      return { kind: `accounts ${command}`, email: emailOf(values) };
    case 'list':
      only(values, [], 'accounts', command);
      return { kind: 'accounts list' };
    default:
      throw new UsageError(
        command === undefined ? 'Missing accounts command: create, set-password or list' : `Unknown accounts command "${command}"`,
      );
  }
}

export function parseCommand(argv: string[]): Command {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: typeof optionSpec; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: optionSpec, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const values = parsed.values as Values;
  const [group, command, ...rest] = parsed.positionals;
  if (values.help) return { kind: 'help' };
  if (group !== 'keys' && group !== 'accounts')
    throw new UsageError(group === undefined ? 'Missing command' : `Unknown command "${group}"`);
  if (rest.length > 0) throw new UsageError(`Unexpected argument "${rest[0]}"`);
  return group === 'keys' ? parseKeysCommand(command, values) : parseAccountsCommand(command, values);
}

/** The password of `accounts create` / `set-password`, and whether it was generated. */
interface PasswordInput {
  password: string;
  generated: boolean;
}

// Far beyond any valid password: a longer first line is refused without reading it all.
const MAX_LINE = 4 * PASSWORD_MAX_LENGTH + 16;

/**
 * The first line of stdin without its line ending; undefined when stdin ends before any byte.
 * Stops at the first newline, so a writer that keeps stdin open does not block the command.
 */
async function readFirstLine(stream: CliIo['stdin']): Promise<string | undefined> {
  stream.setEncoding('utf8');
  let text = '';
  let sawAny = false;
  for await (const chunk of stream as AsyncIterable<string>) {
    sawAny = true;
    text += chunk;
    const end = text.indexOf('\n');
    if (end >= 0) {
      text = text.slice(0, end);
      break;
    }
    if (text.length > MAX_LINE) break;
  }
  return sawAny ? text.replace(/\r$/, '') : undefined;
}

async function passwordInput(stdin: CliIo['stdin']): Promise<PasswordInput> {
  const piped = stdin.isTTY ? undefined : await readFirstLine(stdin);
  // 15 random bytes: 120 bits, exactly 20 base64url characters (no padding, shell-safe).
  if (piped === undefined) return { password: randomBytes(15).toString('base64url'), generated: true };
  return { password: piped, generated: false };
}

/** The user's id, or undefined for a user never seen. */
async function findUser(db: Db, who: Who): Promise<string | undefined> {
  const { findUserBySubject, userExists } = await import('./auth/users.js');
  if ('id' in who) return (await userExists(db, who.id)) ? who.id : undefined;
  return findUserBySubject(db, who.subject);
}

/** The user's id; a user seen for the first time is created. */
async function findOrCreateUser(db: Db, who: Who): Promise<string> {
  const { ensureUser } = await import('./auth/users.js');
  return (await findUser(db, who)) ?? ensureUser(db, 'id' in who ? who.id : who.subject);
}

const iso = (d: Date | null): string => (d ? d.toISOString() : '-');

function status(key: ApiKey): string {
  if (key.revoked_at) return 'revoked';
  if (key.expires_at && key.expires_at.getTime() <= Date.now()) return 'expired';
  return 'active';
}

type Runnable = Exclude<Command, { kind: 'help' }>;

async function run(
  command: Runnable,
  database: DatabaseHandle,
  config: Config,
  input: PasswordInput | undefined,
  io: CliIo,
): Promise<number> {
  const { db } = database;
  const { ApiKeyService } = await import('./auth/api-key-service.js');
  // The operator's tool: no cap on a user's live keys.
  const apiKeys = new ApiKeyService({ db, env: config.apiKeyEnv });
  const accounts = new AccountService({ db, passwordParams: scryptParams(config.scryptCost) });
  switch (command.kind) {
    case 'keys create': {
      const userId = await findOrCreateUser(db, command.who);
      const key = await apiKeys.create(userId, { name: command.name, scopes: command.scopes, expires_at: command.expiresAt });
      io.stdout.write(`${key.raw_key}\n`);
      io.stderr.write(
        `Created API key ${key.id} "${key.name}" for user ${userId} with scopes ${key.scopes.join(',')}` +
          `${key.expires_at ? `, expiring ${iso(key.expires_at)}` : ''}. It is shown only once: store it now.\n`,
      );
      return 0;
    }
    case 'keys list': {
      const userId = await findUser(db, command.who);
      const keys = userId ? await apiKeys.listAll(userId) : [];
      io.stdout.write(`${['id', 'prefix', 'name', 'scopes', 'status', 'created_at', 'expires_at', 'last_used_at'].join('\t')}\n`);
      for (const k of keys) {
        io.stdout.write(
          [k.id, k.prefix, k.name, k.scopes.join(','), status(k), iso(k.created_at), iso(k.expires_at), iso(k.last_used_at)].join('\t') +
            '\n',
        );
      }
      io.stderr.write(`${keys.length} API key(s)${userId ? ` of user ${userId}` : '; no such user'}\n`);
      return 0;
    }
    case 'keys revoke': {
      const before = Date.now();
      const key = await apiKeys.revokeById(command.id);
      if (!key) {
        io.stderr.write(`Error: no API key with id ${command.id}\n`);
        return 1;
      }
      const already = key.revoked_at !== null && key.revoked_at.getTime() < before;
      io.stderr.write(
        already ? `API key ${key.id} was already revoked at ${iso(key.revoked_at)}\n` : `Revoked API key ${key.id} "${key.name}"\n`,
      );
      return 0;
    }
    case 'accounts create': {
      const { password, generated } = input!;
      const account = await accounts.signUp(command.email, password);
      io.stdout.write(`${[account.id, account.email, ...(generated ? [password] : [])].join('\t')}\n`);
      io.stderr.write(
        `Created local account ${account.id} for ${account.email}` +
          `${generated ? '. Its generated password (the third field on stdout) is shown only once: pass it on now' : ' with the password from stdin'}.\n`,
      );
      return 0;
    }
    case 'accounts set-password': {
      const { password, generated } = input!;
      const changed = await accounts.setPassword(command.email, password);
      if (!changed) {
        io.stderr.write(`Error: no local account with email ${command.email}\n`);
        return 1;
      }
      const { account, endedSignIns } = changed;
      io.stdout.write(`${[account.id, account.email, ...(generated ? [password] : [])].join('\t')}\n`);
      io.stderr.write(
        `Set a new password for ${account.email} (${account.id}) and ended ${endedSignIns} sign-in(s)` +
          `${generated ? '. The generated password (the third field on stdout) is shown only once: pass it on now' : ''}.\n`,
      );
      return 0;
    }
    case 'accounts list': {
      const listed = await accounts.list();
      io.stdout.write(`${['id', 'email', 'created_at'].join('\t')}\n`);
      for (const a of listed) io.stdout.write(`${[a.id, a.email, iso(a.created_at)].join('\t')}\n`);
      io.stderr.write(`${listed.length} local account(s)\n`);
      return 0;
    }
  }
}

const needsPassword = (command: Runnable): boolean => command.kind === 'accounts create' || command.kind === 'accounts set-password';

async function main(argv: string[], io: CliIo): Promise<number> {
  let command: Runnable;
  let config: Config;
  let input: PasswordInput | undefined;
  try {
    const parsed = parseCommand(argv);
    if (parsed.kind === 'help') {
      io.stdout.write(`${USAGE}\n`);
      return 0;
    }
    command = parsed;
    config = loadConfig(io.env);
    if (needsPassword(command)) {
      // Read and checked before the database is opened: a bad password changes nothing.
      input = await passwordInput(io.stdin);
      checkPassword(input.password);
    }
  } catch (error) {
    if (error instanceof UsageError) io.stderr.write(`Error: ${error.message}\n\n${USAGE}\n`);
    else if (error instanceof ConfigError) io.stderr.write(`Configuration error: ${error.message}\n`);
    else if (error instanceof ApiError) io.stderr.write(`Error: ${error.message}\n`);
    else throw error;
    return 2;
  }

  let database: DatabaseHandle;
  try {
    const { openDatabase } = await import('./db/database.js');
    database = await openDatabase(config);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/in use by process/.test(message)) {
      io.stderr.write(
        `Error: ${message}. A running server holds the embedded database in DATA_DIR (${config.dataDir}); ` +
          (command.kind.startsWith('keys')
            ? 'stop it first, or create the key through the API (POST /v1/me/api-keys with an admin key or a JWT).\n'
            : 'stop it first, then run this command again.\n'),
      );
    } else {
      io.stderr.write(
        `Error: cannot open the database (${config.databaseUrl ? 'DATABASE_URL' : `embedded, in ${config.dataDir}`}): ${message}\n`,
      );
    }
    return 1;
  }
  try {
    return await run(command, database, config, input, io);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    io.stderr.write(`Error: ${error.message}\n`);
    return error.status >= 500 ? 1 : 2;
  } finally {
    await database.close();
  }
}

/**
 * Runs one command line: `argv` without node and the script, the environment it reads its
 * configuration from, stdin for a password, stdout and stderr for what it prints. Resolves with the
 * exit code; an unexpected failure is code 1 with its message on stderr. src/cli.ts runs it on the
 * process; the CLI's tests run most of their calls in their own process (docs/testing.md).
 */
export function runCli(argv: string[], io: CliIo): Promise<number> {
  return main(argv, io).catch((error: unknown) => {
    io.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  });
}
