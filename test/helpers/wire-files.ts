// Which test files the wire run (scripts/test-wire.ts) runs again on PostgreSQL. Its purpose is the
// SQL on a real server: a file that never reaches a database proves nothing more there, and a file
// that does is left out only when named in EMBEDDED_ONLY with its reason (docs/testing.md, "What
// runs on one database only"). Whether a file reaches a database is read from its imports, followed
// through the project's own modules, so no file that starts a service leaves the run unnoticed
// (test/wire-files.test.ts checks the rule).
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Files that start a service, left to the embedded run all the same, each with its reason: what they
 * assert is not the database's (the SQL they reach is the common lookups every other file runs on
 * both). A file with SQL of its own subject (its queries, transactions, concurrent writers, faults,
 * search, jobs) does not belong here.
 */
export const EMBEDDED_ONLY: ReadonlyMap<string, string> = new Map([
  ['test/client.test.ts', 'the generated client against the served OpenAPI document'],
  ['test/web-app-serving.test.ts', "the web app's files, caching and security headers"],
  ['test/embedded-threads.test.ts', "the embedded database's threads; its test skips itself on another database"],
  ['test/scopes.test.ts', "each route's scope, checked before any lookup; no token or another scheme is 401"],
  ['test/oidc.test.ts', "the identity provider's protocol and tokens; the users its tokens make go through auth-jwt's path, run on both"],
  ['test/login-throttle.test.ts', 'the throttle counts client addresses in memory; signing in is accounts.test.ts, run on both'],
  [
    'test/chats-anthropic.test.ts',
    "the Anthropic provider's wire format, errors and retries; a chat's messages and its one-reply lease are chats.test.ts's, run on both",
  ],
  [
    'test/fuzz.test.ts',
    "random input to every route, answered by validation and the error envelope; the values a database refuses (NUL, unpaired surrogates) are errors.test.ts's, run on both",
  ],
  [
    'test/openapi-responses.test.ts',
    "every answer against the served OpenAPI document; each route's queries are its own file's, run on both, through the same driver",
  ],
]);

/**
 * Modules that start the service or open a database: the harness, a service as a process of its own,
 * the compiled entries (the service and the CLI as processes), the wire run's databases and
 * everything under src/db/.
 */
const REACHES = ['test/helpers/harness.ts', 'test/helpers/child-server.ts', 'test/helpers/compiled.ts', 'test/helpers/wire-database.ts'];
const reaching = (file: string) => REACHES.includes(file) || file.startsWith('src/db/');

/** The project's modules `file` (relative to `root`) imports, statically or dynamically, relative to `root`. */
function importsOf(root: string, file: string): string[] {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const specifiers = [
    ...[...text.matchAll(/(?:^|\s)(?:import|export)\s[^;]*?from\s+'([^']+)'/g)].map((m) => m[1]!),
    ...[...text.matchAll(/(?:^|\s)import\s+'([^']+)'/g)].map((m) => m[1]!),
    ...[...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]!),
  ];
  return specifiers
    .filter((s) => s.startsWith('.'))
    .map((s) => path.relative(root, path.resolve(path.dirname(path.join(root, file)), s)).replace(/\.js$/, '.ts'))
    .filter((f) => fs.existsSync(path.join(root, f)));
}

/** Whether `file` (relative to `root`) imports, through the project's modules, one that starts the service or opens a database. */
export function reachesDatabase(file: string, root = ROOT): boolean {
  const seen = new Set<string>();
  const visit = (f: string): boolean => {
    if (seen.has(f)) return false;
    seen.add(f);
    return reaching(f) || importsOf(root, f).some(visit);
  };
  return visit(file);
}

/** The test files of test/ (not test/e2e/), as paths relative to the project. */
export function testFiles(root = ROOT): string[] {
  return fs
    .readdirSync(path.join(root, 'test'))
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => `test/${f}`)
    .sort();
}

export interface WireSelection {
  /** The files the wire run runs. */
  run: string[];
  /** Left out: they reach no database. */
  noDatabase: string[];
  /** Left out: named in EMBEDDED_ONLY. */
  listed: string[];
  /** What is wrong with the list: a name of a file that does not exist, or that its imports already leave out. */
  problems: string[];
}

/** Splits the test files between the wire run and the embedded run alone. */
export function wireSelection(files = testFiles(), listed: ReadonlyMap<string, string> = EMBEDDED_ONLY, root = ROOT): WireSelection {
  const selection: WireSelection = { run: [], noDatabase: [], listed: [], problems: [] };
  for (const file of files) {
    if (!reachesDatabase(file, root)) selection.noDatabase.push(file);
    else if (listed.has(file)) selection.listed.push(file);
    else selection.run.push(file);
  }
  for (const file of listed.keys()) {
    if (!fs.existsSync(path.join(root, file))) selection.problems.push(`${file} does not exist`);
    else if (!reachesDatabase(file, root)) selection.problems.push(`${file} reaches no database: its imports leave it out already`);
  }
  return selection;
}
