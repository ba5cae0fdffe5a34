// The service as a process of its own (`src/server.ts`, compiled: helpers/compiled.ts), for tests that kill it, restart
// it, or run two instances side by side: started on a free loopback port with the environment given
// (DATA_DIR or DATABASE_URL, and settings), its JSON log lines kept and searchable.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { compiledEntry, compiledEnv, NODE_FLAGS } from './compiled.js';
import { afterEachFile } from './file-group.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface ChildServer {
  proc: ChildProcess;
  url: string;
  exit: Promise<number | null>;
  /** Everything the process printed so far. */
  log(): string;
  /** Resolves with the first log record that satisfies `match`. */
  waitForLog(match: (record: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
}

const children: ChildServer[] = [];
// Whatever a test leaves running is killed when its file ends.
afterEachFile(() => {
  for (const child of children.splice(0)) if (child.proc.exitCode === null && child.proc.signalCode === null) child.proc.kill('SIGKILL');
});

/** Starts the server and resolves once it logs the address it listens on. */
export async function startChildServer(env: Record<string, string>): Promise<ChildServer> {
  const proc = spawn(process.execPath, [...NODE_FLAGS, await compiledEntry('server')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', API_KEY_ENV: 'test', ...compiledEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const records: Record<string, unknown>[] = [];
  const waiters: { match: (r: Record<string, unknown>) => boolean; resolve: (r: Record<string, unknown>) => void }[] = [];
  let pending = '';
  let output = '';
  proc.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    pending += chunk.toString();
    // Complete lines only: a chunk may end mid-line.
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue;
      }
      records.push(record);
      for (const w of [...waiters])
        if (w.match(record)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(record);
        }
    }
  });
  proc.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const waitForLog: ChildServer['waitForLog'] = (match) => {
    const seen = records.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      waiters.push({ match, resolve });
      void exit.then(() => reject(new Error(`the server exited:\n${output.slice(-3000)}`)));
    });
  };
  const child: ChildServer = { proc, url: '', exit, log: () => output, waitForLog };
  children.push(child);
  const listening = await waitForLog((r) => typeof r.msg === 'string' && r.msg.includes('listening on'));
  child.url = /listening on (http:\/\/[^\s)]+)/.exec(listening.msg as string)![1]!;
  return child;
}
