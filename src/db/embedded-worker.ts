// Worker thread that owns the embedded PGlite database and serves it over the PostgreSQL wire
// protocol on a Unix socket. The service talks to it with node-postgres, exactly as it talks to a
// real PostgreSQL server, and query execution never runs on the HTTP thread.
//
// A thread serves one database at a time: the one in its workerData first, then, once that one has
// stopped, whichever a `start` message names (embedded.ts keeps a stopped thread for the next
// database the process opens: loading PGlite's modules into a new thread is about a fifth of a
// database's start).
import type net from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { listenWire } from './embedded-wire.js';

/** The embedded PostgreSQL's buffer pool (its `shared_buffers`). */
const EMBEDDED_SHARED_BUFFERS = '16MB';

export interface EmbeddedDatabasePlace {
  dataDir: string;
  socketPath: string;
}

interface EmbeddedWorkerData extends EmbeddedDatabasePlace {
  /** PGlite's PostgreSQL compiled by the main thread (embedded.ts). */
  wasmModule: WebAssembly.Module;
}

const { wasmModule, ...first } = workerData as EmbeddedWorkerData;
const port = parentPort!;
let serving: { db: PGlite; server: net.Server } | undefined;

async function start({ dataDir, socketPath }: EmbeddedDatabasePlace): Promise<void> {
  try {
    const db = await PGlite.create(dataDir, {
      extensions: { vector },
      pgliteWasmModule: wasmModule,
      // PGlite's default 128 MB of shared buffers is resident from the start (its shared memory
      // is zero-filled WebAssembly memory); the operating system's file cache serves the embedded
      // database's files as well, so a smaller pool keeps the service's memory modest without
      // slowing typical boards: 16 MB is 2,048 pages of 8 kB, about 18 MiB less resident than 32 MB
      // (BENCHMARKS.md "Embedded service memory"; test/embedded-memory.test.ts).
      postgresqlconf: [`shared_buffers=${EMBEDDED_SHARED_BUFFERS}`],
    });
    serving = { db, server: await listenWire(db, socketPath) };
    port.postMessage({ type: 'ready' });
  } catch (error) {
    port.postMessage({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  }
}

port.on('message', async (message: 'stop' | ({ type: 'start' } & EmbeddedDatabasePlace)) => {
  if (message !== 'stop') return void start(message);
  try {
    const { db, server } = serving!;
    serving = undefined;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await db.close();
    port.postMessage({ type: 'stopped' });
  } catch (error) {
    port.postMessage({ type: 'error', message: String(error) });
  }
});

void start(first);
