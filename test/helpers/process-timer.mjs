// Loaded into every test process when TEST_TIMINGS names a file (helpers/compiled.ts): on exit, the
// process appends its test file's wall time and CPU time (its own threads: the embedded databases'
// included; and the processes it started and waited for: servers, CLI calls), a JSON line.
// Node 20's runner reports no time per file, and on a machine others share CPU time is the measure
// that does not change with their load.
import fs from 'node:fs';

const output = process.env.TEST_TIMINGS;
if (output && process.argv[1]?.endsWith('.test.js')) {
  process.on('exit', () => {
    const cpu = process.cpuUsage();
    // /proc/self/stat's 16th and 17th fields: the CPU time of waited-for children, in clock ticks (1/100 s).
    const stat = fs.existsSync('/proc/self/stat') ? fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ') : [];
    const childrenMs = stat.length > 14 ? (Number(stat[13]) + Number(stat[14])) * 10 : 0;
    const line = {
      file: process.argv[1],
      wallMs: Math.round(process.uptime() * 1000),
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      childrenMs,
    };
    fs.appendFileSync(output, `${JSON.stringify(line)}\n`);
  });
}
