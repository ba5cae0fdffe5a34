// The operator's command line (`npm run cli -- …`; what it does: src/cli-main.ts), run on this
// process's arguments, environment and standard streams.
import { runCli } from './cli-main.js';

runCli(process.argv.slice(2), process).then((code) => process.exit(code));
