// The layering rule of docs/architecture.md: domain code never imports from src/http. Shapes that
// services and routes share live in src/contract/, which imports neither.
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
  const specifiers = [...text.matchAll(/(?:^|\s)(?:import|export)\s[^;]*?from\s+'([^']+)'/g)].map((m) => m[1]!);
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

test('the check sees imports: the routes import from src/contract', () => {
  assert.ok(importsOf(path.join('http', 'routes', 'boards.ts')).includes(path.join('contract', 'boards.js')));
});
