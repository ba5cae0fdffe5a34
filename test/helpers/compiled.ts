// The service's entry points (src/server.ts, src/cli.ts) compiled to JavaScript, for tests that run
// them as processes of their own. Loading the sources through tsx costs a process about 1.5 s of
// CPU before it does anything; the CLI tests start dozens and several files start servers, which
// on CI's two cores made them the suite's slowest minutes. esbuild bundles each entry with the npm
// packages left as imports (as `node dist/…` runs them) once per version of src/, into
// node_modules/.cache, shared by every test process; `npm run cli` itself is still tested as is.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { isBuilt, publishBuilt } from './built-dir.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');

/** What a compiled entry needs beside its path: the built web app, which src/config.ts finds relative to itself. */
export const compiledEnv = { WEB_DIST_DIR: path.join(ROOT, 'web', 'dist') };

function sourceKey(): string {
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else hash.update(full).update(fs.readFileSync(full));
    }
  };
  walk(SRC);
  return hash.digest('hex').slice(0, 16);
}

let compiled: Promise<string> | undefined;

async function compile(): Promise<string> {
  const dir = path.join(ROOT, 'node_modules', '.cache', 'bwk-test-build', sourceKey());
  if (isBuilt(dir)) return dir;
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const building = fs.mkdtempSync(`${dir}-building-`);
  await build({
    // The embedded database's worker thread is loaded from beside the entry (src/db/embedded.ts).
    entryPoints: ['server.ts', 'cli.ts', 'db/embedded-worker.ts'].map((f) => path.join(SRC, f)),
    entryNames: '[name]',
    outdir: building,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  // Out of the project's package scope (node_modules), so say these are ES modules.
  fs.writeFileSync(path.join(building, 'package.json'), '{ "type": "module" }\n');
  publishBuilt(building, dir);
  return dir;
}

/** The path of the compiled entry (`server` or `cli`), compiling src/ first if it changed. */
export async function compiledEntry(name: 'server' | 'cli'): Promise<string> {
  compiled ??= compile();
  return path.join(await compiled, `${name}.js`);
}
