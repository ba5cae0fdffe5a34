// Loads a module of the web app for a unit test. The web app's sources import each other without
// extensions (Vite resolves them), which the root project's type check (NodeNext) cannot follow, so
// a test cannot import them statically; esbuild bundles the module (packages left as imports) into
// a file Node can load, whether the test runs from its sources (tsx) or compiled (run-tests.ts).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

/** The module at `relative` (from the repository's root, e.g. 'web/src/board/x.ts'). */
export async function loadWebModule<T>(relative: string): Promise<T> {
  const result = await build({
    entryPoints: [path.resolve(process.cwd(), relative)],
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    logLevel: 'warning',
  });
  // Inside the project, so its packages resolve from the file's place.
  const cache = path.resolve(process.cwd(), 'node_modules', '.cache');
  fs.mkdirSync(cache, { recursive: true });
  const dir = fs.mkdtempSync(path.join(cache, 'bwk-web-module-'));
  const file = path.join(dir, `${path.basename(relative).replace(/\.tsx?$/, '')}.mjs`);
  fs.writeFileSync(file, result.outputFiles[0]?.text ?? '');
  try {
    return (await import(pathToFileURL(file).href)) as T;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
