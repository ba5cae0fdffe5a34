// The operator CLI (src/cli.ts): argument checks, then keys created, listed and revoked, and local
// accounts created, listed and given new passwords, on the database a server then opens (the
// embedded one in a DATA_DIR, or the wire run's TEST_DATABASE_URL), and a clear refusal while a
// running server holds the embedded database. Most calls run the CLI's commands in this process
// (runCli, src/cli-main.ts): a process of its own loads the npm packages and PGlite again, about a
// second of CPU a call. A few run it as the operator does, a process of its own: `npm run cli` itself
// (creating a database, reading a piped stdin), the compiled entry with an argument error, --help,
// and the refusal (a lock held by this very process would not be one).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { runCli } from '../src/cli-main.js';
import { newId } from '../src/lib/ids.js';
import type { ApiKeyList, BodyOf, BoardBody, ErrorBody } from './helpers/api-types.js';
import { JWT_SECRET, startServer, type Response, type TestServer, useServer } from './helpers/harness.js';
import { compiledEntry, compiledEnv, NODE_FLAGS } from './helpers/compiled.js';
import { seedEmbeddedDatabase } from './helpers/embedded-template.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const wire = process.env.TEST_DATABASE_URL;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** This process's environment without the database's settings, and the CLI's settings for the tests. */
function cliEnv(env: Record<string, string>): Record<string, string | undefined> {
  const base = { ...process.env };
  delete base.DATABASE_URL;
  delete base.DATA_DIR;
  return { ...base, LOG_LEVEL: 'silent', API_KEY_ENV: 'test', ...env };
}

/** Runs a command; stdin is /dev/null unless `input` is given, which is piped in and closed. */
function spawnCollect(command: string, args: string[], env: Record<string, string>, input?: string): Promise<Run> {
  const child = spawn(command, args, {
    cwd: root,
    env: cliEnv(env),
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (input !== undefined) child.stdin!.end(input);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** The CLI as a process of its own, compiled (helpers/compiled.ts); `npm run cli` itself is run by the tests that name it. */
const cliProcess = async (args: string[], env: Record<string, string> = {}, input?: string) =>
  spawnCollect(process.execPath, [...NODE_FLAGS, await compiledEntry('cli'), ...args], { ...compiledEnv, ...env }, input);

/** The CLI's commands run in this process, with the streams a process of its own would have: stdin empty unless `input`. */
async function cli(args: string[], env: Record<string, string> = {}, input?: string): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    env: cliEnv({ ...compiledEnv, ...env }),
    stdin: Readable.from(input === undefined ? [] : [Buffer.from(input)], { objectMode: false }),
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

// No database is opened for these: the wire run leaves them to the embedded run.
describe('cli: arguments', { concurrency: true, skip: wire ? 'no database involved: run by the embedded run' : false }, () => {
  const cases: [string, string[], RegExp][] = [
    ['no command', [], /Missing command/],
    ['unknown command', ['users'], /Unknown command "users"/],
    ['unknown keys command', ['keys', 'rotate'], /Unknown keys command "rotate"/],
    ['missing --user', ['keys', 'create', '--name', 'ci', '--scopes', 'read'], /--user <uuid> is required/],
    [
      'malformed --user',
      ['keys', 'create', '--user', 'bob', '--name', 'ci', '--scopes', 'read'],
      /--user must be a user id \(UUID\), got "bob"/,
    ],
    [
      '--user and --subject',
      ['keys', 'create', '--user', newId(), '--subject', 'a|b', '--name', 'ci', '--scopes', 'read'],
      /either --user or --subject/,
    ],
    ['missing --name', ['keys', 'create', '--user', newId(), '--scopes', 'read'], /--name is required/],
    ['blank --name', ['keys', 'create', '--user', newId(), '--name', '  ', '--scopes', 'read'], /--name must be 1\.\.100 characters/],
    [
      'long --name',
      ['keys', 'create', '--user', newId(), '--name', 'x'.repeat(101), '--scopes', 'read'],
      /--name must be 1\.\.100 characters/,
    ],
    ['missing --scopes', ['keys', 'create', '--user', newId(), '--name', 'ci'], /--scopes is required/],
    [
      'empty --scopes',
      ['keys', 'create', '--user', newId(), '--name', 'ci', '--scopes', ''],
      /--scopes must be a comma-separated list of read, write, admin/,
    ],
    ['unknown scope', ['keys', 'create', '--user', newId(), '--name', 'ci', '--scopes', 'read,delete'], /"delete" is not a scope/],
    [
      'bad --expires-at',
      ['keys', 'create', '--user', newId(), '--name', 'ci', '--scopes', 'read', '--expires-at', 'tomorrow'],
      /--expires-at must be an ISO 8601 time/,
    ],
    [
      '--expires-at without zone',
      ['keys', 'create', '--user', newId(), '--name', 'ci', '--scopes', 'read', '--expires-at', '2099-01-01T00:00:00'],
      /with a time zone/,
    ],
    [
      'past --expires-at',
      ['keys', 'create', '--user', newId(), '--name', 'ci', '--scopes', 'read', '--expires-at', '2020-01-01T00:00:00Z'],
      /--expires-at must be in the future/,
    ],
    ['unknown option', ['keys', 'create', '--user', newId(), '--name', 'ci', '--scopes', 'read', '--admin'], /Unknown option '--admin'/],
    ['option of another command', ['keys', 'list', '--user', newId(), '--name', 'ci'], /--name does not apply to "keys list"/],
    ['option without value', ['keys', 'revoke', '--id'], /--id/],
    ['malformed --id', ['keys', 'revoke', '--id', '42'], /--id must be an API key id \(UUID\)/],
    ['extra argument', ['keys', 'list', 'now', '--user', newId()], /Unexpected argument "now"/],
    ['unknown accounts command', ['accounts', 'delete', '--email', 'a@example.test'], /Unknown accounts command "delete"/],
    ['missing accounts command', ['accounts'], /Missing accounts command: create, set-password or list/],
    ['accounts create without --email', ['accounts', 'create'], /--email <email> is required/],
    ['accounts set-password without --email', ['accounts', 'set-password'], /--email <email> is required/],
    [
      'accounts create with --user',
      ['accounts', 'create', '--email', 'a@example.test', '--user', newId()],
      /--user does not apply to "accounts create"/,
    ],
    ['accounts list with --email', ['accounts', 'list', '--email', 'a@example.test'], /--email does not apply to "accounts list"/],
    [
      'keys create with --email',
      ['keys', 'create', '--user', newId(), '--name', 'ci', '--scopes', 'read', '--email', 'a@example.test'],
      /--email does not apply to "keys create"/,
    ],
    ['invalid --email', ['accounts', 'create', '--email', 'not-an-address'], /--email must be an email address, got "not-an-address"/],
    ['--email without a domain dot', ['accounts', 'set-password', '--email', 'a@localhost'], /--email must be an email address/],
    [
      'password as an argument',
      ['accounts', 'create', '--email', 'a@example.test', '--password', 'hunter2hunter2'],
      /Unknown option '--password'/,
    ],
  ];
  // One as a process of its own: the exit code and the streams are the process's.
  const asProcess = new Set(['no command']);
  for (const [name, args, message] of cases) {
    test(`${name}: exit code 2 and a clear message`, async () => {
      const run = await (asProcess.has(name) ? cliProcess : cli)(args);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, message);
      assert.equal(run.stdout, '');
    });
  }

  test('a configuration error is exit code 2', async () => {
    const run = await cli(['keys', 'list', '--user', newId()], { API_KEY_ENV: 'prod' });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /Configuration error: API_KEY_ENV must be "live" or "test"/);
  });

  test('--help prints the usage on stdout', async () => {
    const run = await cliProcess(['--help']);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /keys create --user <uuid> --name <name> --scopes/);
    assert.match(run.stdout, /accounts create --email <email>/);
    assert.match(run.stdout, /accounts set-password --email <email>/);
    assert.match(run.stdout, /accounts list/);
  });
});

describe('cli: keys on the database a server then serves', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bwk-cli-'));
  // The CLI and the server take turns on the same database: the embedded one in dataDir, or (wire
  // run) the shared TEST_DATABASE_URL, whose socket server takes one connection at a time.
  const dbEnv: Record<string, string> = wire ? { DATABASE_URL: wire } : { DATA_DIR: dataDir };
  const serverEnv: Record<string, string> = wire ? {} : { DATA_DIR: dataDir };
  const userId = newId();
  let raw = '';
  let keyId = '';

  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  test('npm run cli -- keys create prints the raw key alone on stdout', async () => {
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const run = await spawnCollect(
      'npm',
      [
        'run',
        '--silent',
        'cli',
        '--',
        'keys',
        'create',
        '--user',
        userId,
        '--name',
        'ci',
        '--scopes',
        'read,write,admin',
        '--expires-at',
        expiresAt,
      ],
      dbEnv,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^bwk_test_[A-Za-z0-9_-]{43}\n$/);
    raw = run.stdout.trim();
    const created = /Created API key ([0-9a-f-]{36}) "ci" for user ([0-9a-f-]{36}) with scopes read,write,admin, expiring (\S+)\./.exec(
      run.stderr,
    );
    assert.ok(created, run.stderr);
    keyId = created[1]!;
    assert.equal(created[2], userId);
    assert.equal(created[3], expiresAt);
    assert.match(run.stderr, /shown only once/);
  });

  test('keys list shows the key without its secret', async () => {
    const run = await cli(['keys', 'list', '--user', userId], dbEnv);
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.equal(lines.length, 2);
    assert.equal(lines[0], 'id\tprefix\tname\tscopes\tstatus\tcreated_at\texpires_at\tlast_used_at');
    assert.deepEqual(lines[1]!.split('\t').slice(0, 5), [keyId, raw.slice(0, 12), 'ci', 'read,write,admin', 'active']);
    assert.ok(!run.stdout.includes(raw.slice(12)));
  });

  test('the server accepts the key, as the same user a JWT with that sub is', async () => {
    const server = await startServer(serverEnv);
    try {
      const board = await server.request<BoardBody>('POST', '/v1/boards', { token: raw, body: { name: 'made with a CLI key' } });
      assert.equal(board.status, 201, board.text);
      const keys = await server.request<ApiKeyList>('GET', '/v1/me/api-keys', { token: raw });
      assert.equal(keys.status, 200);
      assert.deepEqual(
        keys.body.data.map((k) => k.id),
        [keyId],
      );
      const token = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(userId)
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(JWT_SECRET));
      const seen = await server.request('GET', `/v1/boards/${board.body.data.id}`, { token });
      assert.equal(seen.status, 200, seen.text);
    } finally {
      await server.close();
    }
  });

  test('keys revoke: the server then rejects the key; revoking again and unknown ids', async () => {
    const run = await cli(['keys', 'revoke', '--id', keyId], dbEnv);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, new RegExp(`Revoked API key ${keyId} "ci"`));
    const again = await cli(['keys', 'revoke', '--id', keyId], dbEnv);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /was already revoked at/);
    const unknown = await cli(['keys', 'revoke', '--id', newId()], dbEnv);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no API key with id/);

    const server = await startServer(serverEnv);
    try {
      const res = await server.request<ErrorBody>('GET', '/v1/boards', { token: raw });
      assert.equal(res.status, 401);
      assert.equal(res.body.code, 'unauthorized');
    } finally {
      await server.close();
    }
  });
});

describe('cli: embedded database held by a running server', () => {
  const server = useServer({ DATABASE_URL: '' });

  test('refuses with a clear message and exit code 1', async () => {
    const run = await cliProcess(['keys', 'create', '--user', newId(), '--name', 'ci', '--scopes', 'read'], { DATA_DIR: server.dataDir });
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, new RegExp(`in use by process ${process.pid}`));
    assert.match(run.stderr, /stop it first, or create the key through the API/);
    assert.equal(run.stdout, '');
  });
});

/** The bw_refresh cookie value a response sets. */
function refreshCookie(res: Response): string | undefined {
  for (const line of res.headers.getSetCookie()) {
    const match = /^bw_refresh=([^;]*)/.exec(line);
    if (match) return decodeURIComponent(match[1]!);
  }
  return undefined;
}

describe('cli: local accounts on the database a server with sign-up off then serves', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bwk-cli-accounts-'));
  const dbEnv: Record<string, string> = wire ? { DATABASE_URL: wire } : { DATA_DIR: dataDir };
  // The deployment this command exists for: nobody can sign up through the API.
  const serverEnv: Record<string, string> = { AUTH_LOCAL_SIGNUP: 'false', ...(wire ? {} : { DATA_DIR: dataDir }) };
  const tag = randomBytes(4).toString('hex');
  const alice = { email: `alice-${tag}@example.test`, id: '', password: `piped pässword ${tag}`, newPassword: `replaced ${tag} password` };
  const bob = { email: `bob-${tag}@example.test`, id: '', password: '', newPassword: '' };
  const tooShort = `short-${tag}@example.test`;
  let aliceRefresh = '';

  // A migrated database to start from (the keys tests above see the CLI create one).
  before(async () => {
    if (!wire) await seedEmbeddedDatabase(dataDir);
  });
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  const login = (server: TestServer, email: string, password: string) =>
    server.request<BodyOf<'/v1/auth/login', 'post'>>('POST', '/v1/auth/login', { body: { email, password } });

  test('npm run cli -- accounts create reads the password from the first line of stdin', async () => {
    // Upper case normalised like sign-up; the second line is not part of the password.
    const run = await spawnCollect(
      'npm',
      ['run', '--silent', 'cli', '--', 'accounts', 'create', '--email', `  ${alice.email.toUpperCase()} `],
      dbEnv,
      `${alice.password}\nsecond line\n`,
    );
    assert.equal(run.code, 0, run.stderr);
    const match = /^([0-9a-f-]{36})\t(\S+)\n$/.exec(run.stdout);
    assert.ok(match, run.stdout);
    alice.id = match[1]!;
    assert.equal(match[2], alice.email);
    assert.match(run.stderr, new RegExp(`Created local account ${alice.id} for ${alice.email} with the password from stdin`));
    assert.ok(!run.stdout.includes(alice.password) && !run.stderr.includes(alice.password), 'a given password is never echoed');
  });

  test('accounts create with stdin empty generates a password and prints it once on stdout', async () => {
    const run = await cli(['accounts', 'create', '--email', bob.email], dbEnv);
    assert.equal(run.code, 0, run.stderr);
    const match = /^([0-9a-f-]{36})\t(\S+)\t([A-Za-z0-9_-]{20})\n$/.exec(run.stdout);
    assert.ok(match, run.stdout);
    bob.id = match[1]!;
    bob.password = match[3]!;
    assert.equal(match[2], bob.email);
    assert.match(run.stderr, /generated password .* is shown only once/);
    assert.ok(!run.stderr.includes(bob.password), 'the password goes to stdout only');
  });

  test('a taken email (in any case) is exit code 2 with a clear message', async () => {
    const run = await cli(['accounts', 'create', '--email', alice.email.toUpperCase()], dbEnv, 'another password\n');
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /An account with this email already exists/);
    assert.equal(run.stdout, '');
  });

  test('a password shorter than the sign-up rule, or an empty line, is exit code 2 and creates nothing', async () => {
    for (const input of ['seven77\n', '\n']) {
      const run = await cli(['accounts', 'create', '--email', tooShort], dbEnv, input);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /password must be 8 to 256 characters/);
      assert.equal(run.stdout, '');
    }
    const tooLong = await cli(['accounts', 'create', '--email', tooShort], dbEnv, `${'x'.repeat(257)}\n`);
    assert.equal(tooLong.code, 2, tooLong.stderr);
    assert.match(tooLong.stderr, /password must be 8 to 256 characters/);
    const list = await cli(['accounts', 'list'], dbEnv);
    assert.equal(list.code, 0, list.stderr);
    assert.ok(!list.stdout.includes(tooShort), list.stdout);
  });

  test('accounts list shows id, email and created_at of the accounts; the count on stderr', async () => {
    const run = await cli(['accounts', 'list'], dbEnv);
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.equal(lines[0], 'id\temail\tcreated_at');
    const rows = lines.slice(1).map((l) => l.split('\t'));
    for (const row of rows) assert.equal(row.length, 3, row.join('|'));
    const ours = rows.filter((r) => r[1]!.endsWith(`-${tag}@example.test`));
    assert.deepEqual(
      ours.map((r) => [r[0], r[1]]),
      [
        [alice.id, alice.email],
        [bob.id, bob.email],
      ],
    );
    for (const row of ours) assert.ok(Date.parse(row[2]!) <= Date.now() && Date.parse(row[2]!) > Date.now() - 3_600_000, row[2]);
    assert.match(run.stderr, new RegExp(`^${rows.length} local account\\(s\\)\\n$`));
    if (!wire) assert.equal(rows.length, 2);
  });

  test('the server (sign-up off) signs both accounts in with their passwords', async () => {
    const server = await startServer(serverEnv);
    try {
      const signup = await server.request('POST', '/v1/auth/signup', {
        body: { email: `eve-${tag}@example.test`, password: 'long enough password' },
      });
      assert.equal(signup.status, 403, signup.text);
      const a = await login(server, alice.email, alice.password);
      assert.equal(a.status, 200, a.text);
      assert.deepEqual(a.body.user, { id: alice.id, email: alice.email });
      aliceRefresh = refreshCookie(a) ?? '';
      assert.ok(aliceRefresh, 'login set the refresh cookie');
      const b = await login(server, bob.email, bob.password);
      assert.equal(b.status, 200, b.text);
      assert.deepEqual(b.body.user, { id: bob.id, email: bob.email });
      const boards = await server.request('GET', '/v1/boards', { token: b.body.access_token });
      assert.equal(boards.status, 200, boards.text);
    } finally {
      await server.close();
    }
  });

  test('accounts set-password: a new password (piped or generated), and the earlier sign-ins end', async () => {
    const a = await cli(['accounts', 'set-password', '--email', alice.email], dbEnv, `${alice.newPassword}\r\n`);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(a.stdout, `${alice.id}\t${alice.email}\n`);
    assert.match(a.stderr, new RegExp(`Set a new password for ${alice.email} \\(${alice.id}\\) and ended 1 sign-in\\(s\\)`));

    const b = await cli(['accounts', 'set-password', '--email', bob.email], dbEnv);
    assert.equal(b.code, 0, b.stderr);
    const match = /^([0-9a-f-]{36})\t(\S+)\t([A-Za-z0-9_-]{20})\n$/.exec(b.stdout);
    assert.ok(match, b.stdout);
    assert.deepEqual([match[1], match[2]], [bob.id, bob.email]);
    bob.newPassword = match[3]!;
    assert.notEqual(bob.newPassword, bob.password);

    const short = await cli(['accounts', 'set-password', '--email', bob.email], dbEnv, 'tiny\n');
    assert.equal(short.code, 2, short.stderr);
    assert.match(short.stderr, /password must be 8 to 256 characters/);

    const unknown = await cli(['accounts', 'set-password', '--email', `nobody-${tag}@example.test`], dbEnv, 'whatever password\n');
    assert.equal(unknown.code, 1, unknown.stderr);
    assert.match(unknown.stderr, new RegExp(`no local account with email nobody-${tag}@example.test`));
    assert.equal(unknown.stdout, '');

    const server = await startServer(serverEnv);
    try {
      const refreshed = await server.request<ErrorBody>('POST', '/v1/auth/refresh', { headers: { cookie: `bw_refresh=${aliceRefresh}` } });
      assert.equal(refreshed.status, 401, refreshed.text);
      assert.equal(refreshed.body.code, 'unauthorized');
      assert.equal((await login(server, alice.email, alice.password)).status, 401, 'old password');
      assert.equal((await login(server, alice.email, `${alice.newPassword}\r`)).status, 401, 'the line ending is not part of the password');
      const ok = await login(server, alice.email, alice.newPassword);
      assert.equal(ok.status, 200, ok.text);
      // The new sign-in's refresh token works: only the earlier ones were revoked.
      const again = await server.request('POST', '/v1/auth/refresh', { headers: { cookie: `bw_refresh=${refreshCookie(ok)}` } });
      assert.equal(again.status, 200, again.text);
      assert.equal((await login(server, bob.email, bob.password)).status, 401, 'old generated password');
      assert.equal((await login(server, bob.email, 'tiny')).status, 401, 'the refused password was not set');
      assert.equal((await login(server, bob.email, bob.newPassword)).status, 200);
    } finally {
      await server.close();
    }
  });
});
