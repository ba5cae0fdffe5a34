// The rule that picks the wire run's files (test/helpers/wire-files.ts): a file is left to the
// embedded run when its imports reach no database, or when EMBEDDED_ONLY names it with a reason;
// a file that starts a service is never left out otherwise.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { EMBEDDED_ONLY, reachesDatabase, testFiles, wireSelection } from './helpers/wire-files.js';

/** A project tree of its own in a temporary folder: `files` maps paths to their text. */
function tree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wire-files-'));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  return root;
}

test('a file reaches a database through any chain of imports, static, dynamic or re-exported', () => {
  // The specifiers quoted through `q`, so that this file's own text imports none of them.
  const q = "'";
  const root = tree({
    'src/db/database.ts': 'export const x = 1;\n',
    'src/text/terms.ts': `export const terms = 1;\nexport { x } from ${q}../db/database.js${q};\n`,
    'src/text/pure.ts': 'export const pure = 1;\n',
    'test/helpers/harness.ts': 'export const h = 1;\n',
    'test/helpers/step.ts': `import { h } from ${q}./harness.js${q};\nexport const s = h;\n`,
    'test/server.test.ts': `import { s } from ${q}./helpers/step.js${q};\n`,
    'test/later.test.ts': `test('x', async () => { await import(${q}./helpers/harness.js${q}); });\n`,
    'test/re-export.test.ts': `import { terms } from ${q}../src/text/terms.js${q};\n`,
    'test/pure.test.ts': `import assert from ${q}node:assert${q};\nimport { pure } from ${q}../src/text/pure.js${q};\n`,
    'test/cycle.test.ts': `import { a } from ${q}./helpers/a.js${q};\n`,
    'test/helpers/a.ts': `import { b } from ${q}./b.js${q};\nexport const a = 1;\n`,
    'test/helpers/b.ts': `import { a } from ${q}./a.js${q};\nexport const b = 1;\n`,
  });
  try {
    assert.equal(reachesDatabase('test/server.test.ts', root), true);
    assert.equal(reachesDatabase('test/later.test.ts', root), true);
    assert.equal(reachesDatabase('test/re-export.test.ts', root), true);
    assert.equal(reachesDatabase('test/pure.test.ts', root), false);
    assert.equal(reachesDatabase('test/cycle.test.ts', root), false);
    const files = testFiles(root);
    // A name in the list is honoured only for a file that reaches a database; others are problems.
    const selection = wireSelection(
      files,
      new Map([
        ['test/later.test.ts', 'a reason'],
        ['test/pure.test.ts', 'needless'],
        ['test/gone.test.ts', 'stale'],
      ]),
      root,
    );
    assert.deepEqual(selection.run, ['test/re-export.test.ts', 'test/server.test.ts']);
    assert.deepEqual(selection.listed, ['test/later.test.ts']);
    assert.deepEqual(selection.noDatabase, ['test/cycle.test.ts', 'test/pure.test.ts']);
    assert.equal(selection.problems.length, 2);
    assert.match(selection.problems.join('\n'), /test\/pure\.test\.ts reaches no database/);
    assert.match(selection.problems.join('\n'), /test\/gone\.test\.ts does not exist/);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test("the project's files: every one that starts a service or opens a database runs on PostgreSQL unless named with a reason", () => {
  const selection = wireSelection();
  assert.deepEqual(selection.problems, []);
  // By their text too, not only by the rule's reading of their imports: a file that starts a server
  // (or the CLI, or opens a database) is in the run or in the list.
  const starts = /\b(useServer|startServer|startChildServer|compiledEntry|openDatabase)\(/;
  const leftOut = selection.noDatabase.filter((file) =>
    starts.test(fs.readFileSync(path.resolve(import.meta.dirname, '..', file), 'utf8')),
  );
  assert.deepEqual(leftOut, []);
  for (const [file, reason] of EMBEDDED_ONLY) assert.ok(reason.length > 20, `${file} needs its reason`);
  assert.equal(selection.run.length + selection.noDatabase.length + selection.listed.length, testFiles().length);
  assert.ok(selection.run.includes('test/boards.test.ts'));
  assert.ok(selection.run.includes('test/multi-instance.test.ts'));
  assert.ok(selection.noDatabase.includes('test/layers.test.ts'));
  assert.ok(selection.noDatabase.includes('test/wire-files.test.ts'));
});
