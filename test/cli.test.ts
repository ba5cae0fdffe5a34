// The operator CLI (src/cli.ts), run as a child process: argument checks, then keys created, listed
// and revoked on the database a server then opens (the embedded one in a DATA_DIR, or the wire run's
// TEST_DATABASE_URL), and a clear refusal while a running server holds the embedded database.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { newId } from '../src/lib/ids.js';
import { JWT_SECRET, startServer, type TestServer } from './helpers/harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const wire = process.env.TEST_DATABASE_URL;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function spawnCollect(command: string, args: string[], env: Record<string, string>): Promise<Run> {
  const base = { ...process.env };
  delete base.DATABASE_URL;
  delete base.DATA_DIR;
  const child = spawn(command, args, { cwd: root, env: { ...base, LOG_LEVEL: 'silent', API_KEY_ENV: 'test', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const cli = (args: string[], env: Record<string, string> = {}) => spawnCollect(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], env);

describe('cli: arguments', { concurrency: true }, () => {
  const cases: [string, string[], RegExp][] = [
    ['no command', [], /Missing command/],
    ['unknown command', ['users'], /Unknown command "users"/],
    ['unknown keys command', ['keys', 'rotate'], /Unknown keys command "rotate"/],
    ['missing --user', ['keys', 'create', '--name', 'ci', '--scopes', 'read'], /--user <uuid> is required/],
    ['malformed --user', ['keys', 'create', '--user', 'bob', '--name', 'ci', '--scopes', 'read'], /--user must be a user id \(UUID\), got "bob"/],
    ['--user and --subject', ['keys', 'create', '--user', newId(), '--subject', 'a|b', '--name', 'ci', '--scopes', 'read'], /either --user or --subject/],
    ['missing --name', ['keys', 'create', '--user', newId(), '--scopes', 'read'], /--name is required/],
    ['blank --name', ['keys', 'create', '--user', newId(), '--name', '  ', '--scopes', 'read'], /--name must be 1\.\.100 characters/],
    ['long --name', ['keys', 'create', '--user', newId(), '--name', 'x'.repeat(101), '--scopes', 'read'], /--name must be 1\.\.100 characters/],
    ['missing --scopes', ['keys', 'create', '--user', newId(), '--name', 'ci'], /--scopes is required/],
    ['empty --scopes', ['keys', 'create', '--user', newId(), '--name', 'ci', '--scopes', ''], /--scopes must be a comma-separated list of read, write, admin/],
    ['unknown scope', ['keys', 'create', '--user', newId(), '--name', 'ci', '--scopes', 'read,delete'], /"delete" is not a scope/],
    ['bad --expires-at', ['keys', 'create', '--user', newId(), '--name', 'ci', '--scopes', 'read', '--expires-at', 'tomorrow'], /--expires-at must be an ISO 8601 time/],
    ['--expires-at without zone', ['keys', 'create', '--user', newId(), '--name', 'ci', '--scopes', 'read', '--expires-at', '2099-01-01T00:00:00'], /with a time zone/],
    ['past --expires-at', ['keys', 'create', '--user', newId(), '--name', 'ci', '--scopes', 'read', '--expires-at', '2020-01-01T00:00:00Z'], /--expires-at must be in the future/],
    ['unknown option', ['keys', 'create', '--user', newId(), '--name', 'ci', '--scopes', 'read', '--admin'], /Unknown option '--admin'/],
    ['option of another command', ['keys', 'list', '--user', newId(), '--name', 'ci'], /--name does not apply to "keys list"/],
    ['option without value', ['keys', 'revoke', '--id'], /--id/],
    ['malformed --id', ['keys', 'revoke', '--id', '42'], /--id must be an API key id \(UUID\)/],
    ['extra argument', ['keys', 'list', 'now', '--user', newId()], /Unexpected argument "now"/],
  ];
  for (const [name, args, message] of cases) {
    test(`${name}: exit code 2 and a clear message`, async () => {
      const run = await cli(args);
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
    const run = await cli(['--help']);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /keys create --user <uuid> --name <name> --scopes/);
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
    const run = await spawnCollect('npm', ['run', '--silent', 'cli', '--', 'keys', 'create', '--user', userId, '--name', 'ci', '--scopes', 'read,write,admin', '--expires-at', expiresAt], dbEnv);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^bwk_test_[A-Za-z0-9_-]{43}\n$/);
    raw = run.stdout.trim();
    const created = /Created API key ([0-9a-f-]{36}) "ci" for user ([0-9a-f-]{36}) with scopes read,write,admin, expiring (\S+)\./.exec(run.stderr);
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
      const board = await server.request('POST', '/v1/boards', { token: raw, body: { name: 'made with a CLI key' } });
      assert.equal(board.status, 201, board.text);
      const keys = await server.request('GET', '/v1/me/api-keys', { token: raw });
      assert.equal(keys.status, 200);
      assert.deepEqual(keys.body.data.map((k: { id: string }) => k.id), [keyId]);
      const token = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(userId).setExpirationTime('5m').sign(new TextEncoder().encode(JWT_SECRET));
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
      const res = await server.request('GET', '/v1/boards', { token: raw });
      assert.equal(res.status, 401);
      assert.equal(res.body.code, 'unauthorized');
    } finally {
      await server.close();
    }
  });
});

describe('cli: embedded database held by a running server', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ DATABASE_URL: '' });
  });
  after(() => server.close());

  test('refuses with a clear message and exit code 1', async () => {
    const run = await cli(['keys', 'create', '--user', newId(), '--name', 'ci', '--scopes', 'read'], { DATA_DIR: server.dataDir });
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, new RegExp(`in use by process ${process.pid}`));
    assert.match(run.stderr, /stop it first, or create the key through the API/);
    assert.equal(run.stdout, '');
  });
});
