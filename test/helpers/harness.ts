// Test harness: starts the real app on a real database and a real port, and makes users, API keys
// and JWTs. By default each server gets its own embedded database in a temporary DATA_DIR; when
// TEST_DATABASE_URL is set (the wire-protocol run, see scripts/test-wire.ts and wire-database.ts)
// it uses that server through node-postgres instead.
import type { Edge, EdgeInput, Job, Node, NodeInput } from './api-types.js';
import { compiledEnv } from './compiled.js';
import { seedEmbeddedDatabase } from './embedded-template.js';
import { keepDatabase, keptOrOwnDatabase } from './kept-database.js';
import { realPostgres } from './wire-database.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { SignJWT } from 'jose';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { ApiKeyService } from '../../src/auth/api-key-service.js';
import type { Scope } from '../../src/auth/principal.js';
import { loadConfig, type Config } from '../../src/config.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { newId } from '../../src/lib/ids.js';

export const JWT_SECRET = 'test-secret-that-is-at-least-32-bytes-long!!';
/** The contract's timestamp form: ISO 8601 UTC with milliseconds. */
export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** A well-formed id that names nothing. */
export const MISSING_ID = '00000000-0000-4000-8000-000000000000';

export interface TestUser {
  userId: string;
  /** An API key with read, write and admin. */
  token: string;
  keyWith(scopes: Scope[], extra?: { expires_at?: string; name?: string }): Promise<{ id: string; raw_key: string }>;
  jwt(claims?: Record<string, unknown>): Promise<string>;
}

/** An answer; `body` is the parsed JSON, typed by the caller (see api-types.ts) or `unknown`. */
export interface Response<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A running server; `request` reads bodies as `unknown` unless the caller names their type (api-types.ts). */
export interface TestServer {
  url: string;
  config: Config;
  built: BuiltApp;
  database: DatabaseHandle;
  dataDir: string;
  user(): Promise<TestUser>;
  /** Creates a board for the user (asserting 201) and returns its id. */
  makeBoard(user: TestUser, extra?: Record<string, unknown>): Promise<string>;
  /** Creates a node (a blank note unless `fields` say otherwise), asserting 201, and returns it. */
  makeNode(user: TestUser, boardId: string, fields?: Partial<NodeInput>): Promise<Node>;
  /** Creates an edge between two nodes, asserting 201, and returns it. */
  makeEdge(user: TestUser, boardId: string, source: string, target: string, fields?: Partial<EdgeInput>): Promise<Edge>;
  /** Polls GET /v1/jobs/{id} until the job is no longer processing and returns it. */
  waitForJob(id: string, token: string, timeoutMs?: number): Promise<Job>;
  /** Sends a request; `T` is the body's type, usually one from api-types.ts. */
  request<T = unknown>(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string>; raw?: string | Uint8Array<ArrayBuffer> },
  ): Promise<Response<T>>;
  close(): Promise<void>;
}

/**
 * Opens the database. The wire run's server (pglite-socket, one connection) may still be closing a
 * previous server's connection and drops a new one meanwhile: then it tries again, briefly.
 */
async function openWithRetry(config: Config, startEmbedded?: Parameters<typeof openDatabase>[1]): Promise<DatabaseHandle> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await openDatabase(config, startEmbedded);
    } catch (error) {
      if (!process.env.TEST_DATABASE_URL || attempt === 10) throw error;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  }
}

export async function startServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bwk-test-'));
  const config = loadConfig({
    // Named, not found from src/config.ts's place: the test files may run bundled (helpers/compiled.ts).
    ...compiledEnv,
    DATA_DIR: dataDir,
    AUTH_JWT_SECRET: JWT_SECRET,
    LOG_LEVEL: 'silent',
    API_KEY_ENV: 'test',
    RATE_LIMIT_API_KEY_PER_MINUTE: '100000',
    RATE_LIMIT_JWT_PER_MINUTE: '100000',
    // pglite-socket takes one connection; a real server gets a pool of several, as in production.
    ...(process.env.TEST_DATABASE_URL ? { DATABASE_URL: process.env.TEST_DATABASE_URL, DATABASE_POOL_MAX: realPostgres ? '4' : '1' } : {}),
    ...env,
  });
  // Embedded, with no database of its own named: the one its process keeps, when no other server
  // holds it (kept-database.ts), else a copy of the template in its DATA_DIR.
  const kept = keepDatabase && config.databaseUrl === undefined && env.DATA_DIR === undefined && env.DATABASE_URL === undefined;
  if (config.databaseUrl === undefined && !kept) await seedEmbeddedDatabase(config.dataDir);
  const database = await openWithRetry(config, kept ? keptOrOwnDatabase : undefined);
  const built = await buildApp(config, database);
  const address = await built.app.listen({ port: 0, host: '127.0.0.1' });

  const request: TestServer['request'] = async (method, urlPath, options = {}) => {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | Uint8Array<ArrayBuffer> | undefined = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${address}${urlPath}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed as any, text };
  };

  const user = async (): Promise<TestUser> => {
    const userId = newId();
    const keyWith: TestUser['keyWith'] = async (scopes, extra = {}) => {
      const key = await new ApiKeyService({ db: database.db, env: 'test' }).createForSubject(userId, {
        name: extra.name ?? 'test',
        scopes,
        expires_at: extra.expires_at,
      });
      return { id: key.id, raw_key: key.raw_key };
    };
    const full = await keyWith(['read', 'write', 'admin']);
    return {
      userId,
      token: full.raw_key,
      keyWith,
      jwt: (claims = {}) =>
        new SignJWT({ ...claims })
          .setProtectedHeader({ alg: 'HS256' })
          .setSubject(userId)
          .setIssuedAt()
          .setExpirationTime('10m')
          .sign(new TextEncoder().encode(JWT_SECRET)),
    };
  };

  const makeBoard: TestServer['makeBoard'] = async (owner, extra = {}) => {
    const res = await request('POST', '/v1/boards', { token: owner.token, body: { name: 'Board', ...extra } });
    if (res.status !== 201) throw new Error(`creating a board answered ${res.status}: ${res.text}`);
    return (res.body as { data: { id: string } }).data.id;
  };

  const makeNode: TestServer['makeNode'] = async (owner, boardId, fields = {}) => {
    const body: NodeInput = { type: 'note', position: { x: 0, y: 0 }, data: { text: '' }, ...fields };
    const res = await request<{ data: Node }>('POST', `/v1/boards/${boardId}/nodes`, { token: owner.token, body });
    if (res.status !== 201) throw new Error(`creating a node answered ${res.status}: ${res.text}`);
    return res.body.data;
  };

  const makeEdge: TestServer['makeEdge'] = async (owner, boardId, source, target, fields = {}) => {
    const body: EdgeInput = { source_node_id: source, target_node_id: target, ...fields };
    const res = await request<{ data: Edge }>('POST', `/v1/boards/${boardId}/edges`, { token: owner.token, body });
    if (res.status !== 201) throw new Error(`creating an edge answered ${res.status}: ${res.text}`);
    return res.body.data;
  };

  const waitForJob: TestServer['waitForJob'] = async (id, token, timeoutMs = 30_000) => {
    for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
      const res = await request<{ data: Job }>('GET', `/v1/jobs/${id}`, { token });
      if (res.status !== 200) throw new Error(`GET /v1/jobs/${id} answered ${res.status}: ${res.text}`);
      if (res.body.data.status !== 'processing') return res.body.data;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`job ${id} still processing`);
  };

  return {
    url: address,
    config,
    built,
    database,
    dataDir,
    user,
    makeBoard,
    makeNode,
    makeEdge,
    waitForJob,
    request,
    async close() {
      await built.close();
      await database.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * One server for the enclosing suite (the file at top level, else the `describe` it is called in):
 * started in a `before` hook and closed in an `after` hook. The returned object stands for that
 * server, so it can be declared where the tests can see it before the hook has run. Share one only
 * where no test depends on a fresh database (counts of every row) or on a configuration of its own.
 */
export function useServer(env: Record<string, string> = {}): TestServer {
  let starting: Promise<TestServer> | undefined;
  let started: TestServer | undefined;
  // Started on first use as well as in the hook: Node 20 runs a file's top-level before hooks side
  // by side, so the file's own hook (making users, say) may call in before this one has finished.
  const ready = (): Promise<TestServer> =>
    (starting ??= startServer(env).then((server) => {
      started = server;
      return server;
    }));
  const current = (): TestServer => {
    if (!started) throw new Error('useServer: the server starts in a before hook; use it inside a test or hook');
    return started;
  };
  before(async () => {
    await ready();
  });
  after(async () => {
    const server = await starting;
    starting = started = undefined;
    await server?.close();
  });
  return {
    get url() {
      return current().url;
    },
    get config() {
      return current().config;
    },
    get built() {
      return current().built;
    },
    get database() {
      return current().database;
    },
    get dataDir() {
      return current().dataDir;
    },
    user: async () => (await ready()).user(),
    makeBoard: async (...args) => (await ready()).makeBoard(...args),
    makeNode: async (...args) => (await ready()).makeNode(...args),
    makeEdge: async (...args) => (await ready()).makeEdge(...args),
    waitForJob: async (...args) => (await ready()).waitForJob(...args),
    request: async (...args) => (await ready()).request(...args),
    close: () => current().close(),
  };
}

/** Asserts the contract's error envelope and returns it. */
export function isErrorEnvelope(body: unknown, status: number): body is { object: 'error'; status: number; code: string; message: string } {
  const b = body as Record<string, unknown> | undefined;
  return !!b && b.object === 'error' && b.status === status && typeof b.code === 'string' && typeof b.message === 'string';
}
