// The layering rule of docs/architecture.md: every folder of src/ (and the files at its top) stands
// on a floor, and imports only from the floors below it or from itself. Domain code never imports
// from src/http. Shapes that services and routes share live in src/contract/, which imports neither.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');
/** The HTTP layer itself, and what wires it to the domain: the app factory and the domain modules it registers. */
const httpSide = (file: string) => file.startsWith(`http${path.sep}`) || file.startsWith(`modules${path.sep}`) || file === 'app.ts';

/** Every module a file imports or re-exports, resolved to a path relative to src/. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(src, file), 'utf8');
  const specifiers = [
    ...[...text.matchAll(/(?:^|\s)(?:import|export)\s[^;]*?from\s+'([^']+)'/g)].map((m) => m[1]!),
    ...[...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]!), // import('./x.js'), loaded when needed
  ];
  return specifiers.filter((s) => s.startsWith('.')).map((s) => path.relative(src, path.resolve(path.dirname(path.join(src, file)), s)));
}

const files = fs.readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));

test('domain code never imports from src/http', () => {
  const offenders = files
    .filter((f) => !httpSide(f))
    .flatMap((f) =>
      importsOf(f)
        .filter((target) => target.startsWith(`http${path.sep}`))
        .map((target) => `${f} -> ${target}`),
    );
  assert.deepEqual(offenders, []);
});

/**
 * The floors of src/, the ground first. A folder (or a file at the top of src/) imports only from its
 * own floor's folder itself and from lower floors; two folders on one floor do not import each other.
 */
const FLOORS: string[][] = [
  ['contract'], // shapes of requests and responses, and the limits
  ['errors.ts', 'config.ts', 'text'], // the error type; configuration; text terms and tokens
  ['lib'], // small helpers, no domain
  ['db', 'providers'], // the database; outside services behind interfaces
  ['auth'], // who the caller is
  ['access'], // who may see and change a board, its bounds, the user's quotas: what every domain uses
  ['events', 'accounts'], // the change log; local accounts
  ['jobs', 'assets'], // the job queue; asset files
  ['nodes', 'webhooks', 'comments'], // content domains (comments read nodes in SQL only)
  ['documents', 'edges'], // content domains on nodes (a document reads a node; an edge joins nodes)
  ['chats', 'boards'], // content domains on those below (a chat reads documents)
  ['compose', 'interchange'], // what combines the domains: the batch, the duplicate, JSON Canvas import and export
  ['mcp'], // the tools for AI assistants
  ['http'], // routes and plugins
  ['modules'], // each domain's routes, jobs and background work
  ['app.ts', 'cli-main.ts'], // the app factory; the operator's command line
  ['server.ts', 'cli.ts'], // the entry points
];

/** A file's room: its top folder under src/, or the file itself at the top. */
const roomOf = (file: string) => file.split(path.sep)[0]!;
const floorOf = (room: string) => FLOORS.findIndex((floor) => floor.includes(room));

/** An import from one room to another on its floor or above. */
const climbs = (file: string, target: string) => roomOf(target) !== roomOf(file) && floorOf(roomOf(target)) >= floorOf(roomOf(file));

/** Every import of src/ that climbs a floor or goes sideways to another room of its floor. */
function climbing(): string[] {
  return files.flatMap((f) =>
    importsOf(f)
      .filter((target) => climbs(f, target))
      .map((target) => `${f} (floor ${floorOf(roomOf(f))}) -> ${target} (floor ${floorOf(roomOf(target))})`),
  );
}

test('domain code never imports Fastify (it logs through src/lib/logger.ts)', () => {
  const offenders = files
    .filter((f) => !httpSide(f))
    .filter((f) => /^\s*import[^;]*from\s+'fastify'/m.test(fs.readFileSync(path.join(src, f), 'utf8')));
  assert.deepEqual(offenders, []);
});

test('every folder of src/ stands on a floor', () => {
  assert.deepEqual(
    [...new Set(files.map(roomOf))].filter((room) => floorOf(room) < 0),
    [],
  );
});

test('no import climbs a floor', () => {
  assert.deepEqual(climbing(), []);
});

/** The import loops among the files of src/: each as its files, the first repeated at the end. */
function loops(): string[] {
  const graph = new Map(
    files.map((f) => [
      f,
      importsOf(f)
        .map((t) => t.replace(/\.js$/, '.ts'))
        .filter((t) => files.includes(t)),
    ]),
  );
  const found: string[] = [];
  const done = new Set<string>();
  const visit = (file: string, trail: string[]) => {
    const at = trail.indexOf(file);
    if (at >= 0) return void found.push([...trail.slice(at), file].join(' -> '));
    if (done.has(file)) return;
    for (const next of graph.get(file) ?? []) visit(next, [...trail, file]);
    done.add(file);
  };
  for (const f of files) visit(f, []);
  return found;
}

test('no files import each other in a loop (a factory sits apart from the implementations it picks)', () => {
  assert.deepEqual(loops(), []);
});

test('src/contract imports nothing but itself (and TypeBox)', () => {
  const offenders = files
    .filter((f) => f.startsWith(`contract${path.sep}`))
    .flatMap((f) =>
      importsOf(f)
        .filter((target) => !target.startsWith(`contract${path.sep}`))
        .map((target) => `${f} -> ${target}`),
    );
  assert.deepEqual(offenders, []);
});

test('src/contract/limits.ts imports nothing, and the web app takes from the service nothing else', () => {
  assert.deepEqual(importsOf(path.join('contract', 'limits.ts')), []);
  assert.ok(!/^\s*import\s/m.test(fs.readFileSync(path.join(src, 'contract', 'limits.ts'), 'utf8')));
  const web = path.resolve(src, '..', 'web', 'src');
  const offenders = fs
    .readdirSync(web, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.tsx?$/.test(f))
    .flatMap((f) => {
      const text = fs.readFileSync(path.join(web, f), 'utf8');
      return [...text.matchAll(/from\s+'([^']+)'/g)]
        .map((m) => m[1]!)
        .filter(
          (s) => (s.startsWith('.') && path.resolve(web, path.dirname(f), s).startsWith(src)) || s.startsWith('@board-workspace/limits/'),
        )
        .map((s) => `web/src/${f} -> ${s}`);
    });
  assert.deepEqual(offenders, []);
});

test('the check sees imports: the routes import from src/contract', () => {
  assert.ok(importsOf(path.join('http', 'routes', 'boards.ts')).includes(path.join('contract', 'boards.js')));
});

test('the check sees a climb: imports the tree had before its floors are reported', () => {
  const join = (...parts: string[]) => path.join(...parts);
  assert.ok(climbs('config.ts', join('boards', 'board-bounds.js')));
  assert.ok(climbs(join('providers', 'llm', 'local.ts'), join('chats', 'relevance.js')));
  assert.ok(climbs(join('nodes', 'node-service.ts'), join('boards', 'access.js')));
  assert.ok(climbs(join('boards', 'board-service.ts'), join('compose', 'duplicate-board.js')));
  assert.ok(climbs(join('nodes', 'node-service.ts'), join('documents', 'chunk-copy.js')), 'sideways on one floor');
  assert.ok(!climbs(join('nodes', 'node-service.ts'), join('access', 'board-access.js')));
  assert.ok(!climbs(join('nodes', 'node-service.ts'), join('nodes', 'node-data.js')));
});

/**
 * The values (not types) a file imports, each as `name <- module` with the module relative to src/:
 * `import { a, type B } from './x.js'` gives `a`; `import type { … }` gives nothing.
 */
function valueImportsOf(file: string, text = fs.readFileSync(path.join(src, file), 'utf8')): { name: string; from: string }[] {
  return [...text.matchAll(/(?:^|\n)import\s+(type\s+)?\{([^}]*)\}\s*from\s+'([^']+)'/g)]
    .filter((m) => m[1] === undefined && m[3]!.startsWith('.'))
    .flatMap((m) => {
      const from = path.relative(src, path.resolve(path.dirname(path.join(src, file)), m[3]!));
      return m[2]!
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== '' && !name.startsWith('type '))
        .map((name) => ({ name: name.split(/\s+as\s+/)[0]!, from }));
    });
}

/**
 * A domain's service file: where its service class lives, beside the step functions it may still
 * export. Of documents and chats, every module is (their routes and tools call DocumentService and
 * ChatService only); of the quotas, user-quota.ts (its functions take the database: the usage is
 * BoardService's).
 */
const serviceFile = (target: string) =>
  /^(boards|nodes|edges|assets|compose|interchange|events|webhooks|jobs|auth|accounts|documents|chats)\/[\w-]+-service\.js$/.test(
    target.split(path.sep).join('/'),
  ) ||
  /^(documents|chats)\//.test(target.split(path.sep).join('/')) ||
  target === path.join('compose', 'duplicate-board.js') ||
  target === path.join('accounts', 'accounts.js') ||
  target === path.join('access', 'user-quota.js');
/** What of a service file a route may take besides types: the entity tags, the password bounds (no database, no configuration). */
const PURE_HELPERS = new Set(['nodeTag', 'edgeTag', 'PASSWORD_MIN_LENGTH', 'PASSWORD_MAX_LENGTH']);

test("routes and MCP tools call the domains' services through `services`, never a service file's functions", () => {
  const callers = files.filter((f) => f.startsWith(`http${path.sep}`) || f.startsWith(`mcp${path.sep}`));
  const offenders = callers.flatMap((f) =>
    valueImportsOf(f)
      .filter(({ name, from }) => serviceFile(from) && !PURE_HELPERS.has(name))
      .map(({ name, from }) => `${f}: ${name} from ${from}`),
  );
  assert.deepEqual(offenders, []);
});

test('the check sees a route calling a service function', () => {
  const route = path.join('http', 'routes', 'nodes.ts');
  const old =
    "import { createNode, nodeTag, type CreateNodeInput } from '../../nodes/node-service.js';\nimport type { Node } from '../../contract/nodes.js';";
  assert.deepEqual(valueImportsOf(route, old), [
    { name: 'createNode', from: path.join('nodes', 'node-service.js') },
    { name: 'nodeTag', from: path.join('nodes', 'node-service.js') },
  ]);
  assert.ok(serviceFile(path.join('nodes', 'node-service.js')));
  assert.ok(serviceFile(path.join('compose', 'duplicate-board.js')));
  assert.ok(!serviceFile(path.join('nodes', 'node-data.js')));
  // The calls routes and tools made before documents and chats had their services.
  const tools =
    "import { searchChunksPage } from '../documents/search-service.js';\nimport { boardRetriever } from '../chats/retrieval.js';";
  assert.ok(
    valueImportsOf(path.join('mcp', 'read-tools.ts'), tools).every(({ from }) => serviceFile(from)),
    'search-service.js and retrieval.js are service files',
  );
  assert.ok(serviceFile(path.join('documents', 'cross-board-search.js')));
  assert.ok(serviceFile(path.join('access', 'user-quota.js')));
});
