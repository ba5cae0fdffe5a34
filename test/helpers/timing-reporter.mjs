// A node:test reporter for TEST_TIMINGS (helpers/compiled.ts): every test's and suite's time, a JSON
// line each, beside what helpers/process-timer.mjs writes per file (scripts/test-timings.ts reads both).
export default async function* timingReporter(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, name, nesting, details, skip } = event.data;
    yield `${JSON.stringify({ file, name, nesting, ms: details?.duration_ms, passed: event.type === 'test:pass', skip: !!skip })}\n`;
  }
}
