// Worker thread that owns the embedded PGlite database and serves it over the PostgreSQL wire
// protocol on a Unix socket. The service talks to it with node-postgres, exactly as it talks to a
// real PostgreSQL server, and query execution never runs on the HTTP thread.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { listenWire } from './embedded-wire.js';

interface EmbeddedWorkerData {
  dataDir: string;
  socketPath: string;
  /** PGlite's PostgreSQL compiled by the main thread (embedded.ts). */
  wasmModule: WebAssembly.Module;
}

const { dataDir, socketPath, wasmModule } = workerData as EmbeddedWorkerData;
const port = parentPort!;

try {
  const db = await PGlite.create(dataDir, {
    extensions: { vector },
    pgliteWasmModule: wasmModule,
    // PGlite's default 128 MB of shared buffers is resident from the start; the operating system's
    // file cache serves the embedded database's files as well, so a smaller pool keeps the
    // service's memory modest without slowing typical boards.
    postgresqlconf: ['shared_buffers=32MB'],
  });
  const server = await listenWire(db, socketPath);
  port.on('message', async (message: unknown) => {
    if (message !== 'stop') return;
    try {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await db.close();
      port.postMessage({ type: 'stopped' });
    } catch (error) {
      port.postMessage({ type: 'error', message: String(error) });
    }
  });
  port.postMessage({ type: 'ready' });
} catch (error) {
  port.postMessage({ type: 'error', message: error instanceof Error ? error.message : String(error) });
}
