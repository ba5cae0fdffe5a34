// Runs test files bundled (test/helpers/compiled.ts says why): `tsx scripts/run-tests.ts [--concurrency N] <files…>`.
// `npm run test:embedded` and `npm run test:e2e` run through here; scripts/test-wire.ts likewise.
import { parseArgs } from 'node:util';
import { runTests } from '../test/helpers/compiled.js';

const { values, positionals } = parseArgs({ options: { concurrency: { type: 'string', default: '2' } }, allowPositionals: true });
if (positionals.length === 0) {
  console.error('usage: tsx scripts/run-tests.ts [--concurrency N] <test files…>');
  process.exit(2);
}
process.exit(await runTests(positionals, {}, Number(values.concurrency)));
