// A real, throwaway redis-server for tests: spawned on a free loopback port with persistence off,
// stopped by its own pid. Tests that need it skip when redis-server is not installed.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';

export interface RedisServer {
  url: string;
  port: number;
  /** Stops the server (SIGTERM to the process this helper started) and waits for it to exit. */
  stop(): Promise<void>;
}

export const redisAvailable = (): boolean => spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Starts a server on a free port, or on `port` (a server stopped earlier coming back where it was). */
export async function startRedis(port?: number): Promise<RedisServer> {
  port ??= await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 15_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with code ${code}:\n${output}`));
    });
  });
  child.stdout!.resume();
  let stopped: Promise<void> | undefined;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop() {
      stopped ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        await exited;
      })();
      return stopped;
    },
  };
}
