// A PostgreSQL wire-protocol endpoint for one PGlite session, used by the embedded worker.
//
// Written here rather than taken from @electric-sql/pglite-socket because that server hands PGlite
// one protocol message per call (to multiplex clients), which makes every parameterised query four
// or five round trips into WebAssembly. Our service holds exactly one connection, so this endpoint
// passes each batch of complete messages to PGlite in one call, serves one client at a time (later
// ones wait their turn), and rolls back a transaction its client abandoned.
import net from 'node:net';
import type { PGlite } from '@electric-sql/pglite';

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;

function serve(db: PGlite, socket: net.Socket): Promise<void> {
  return new Promise((resolve) => {
    socket.setNoDelay(true);
    let buffer = Buffer.alloc(0);
    let started = false;
    let queue = Promise.resolve();
    let open = true;

    const finish = () => {
      if (!open) return;
      open = false;
      queue = queue
        .then(async () => {
          if (db.isInTransaction()) await db.exec('ROLLBACK');
        })
        .catch(() => {})
        .then(resolve);
    };

    socket.on('data', (chunk) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      const messages: Buffer[] = [];
      let offset = 0;
      for (;;) {
        const left = buffer.length - offset;
        if (!started) {
          if (left < 8) break;
          const length = buffer.readInt32BE(offset);
          if (left < length) break;
          const code = buffer.readInt32BE(offset + 4);
          if (code === SSL_REQUEST) socket.write('N');
          else if (code === CANCEL_REQUEST) socket.end();
          else {
            messages.push(buffer.subarray(offset, offset + length));
            started = true;
          }
          offset += length;
          continue;
        }
        if (left < 5) break;
        const length = 1 + buffer.readInt32BE(offset + 1);
        if (left < length) break;
        messages.push(buffer.subarray(offset, offset + length));
        offset += length;
      }
      buffer = buffer.subarray(offset);
      if (messages.length === 0) return;
      const batch = new Uint8Array(messages.length === 1 ? messages[0]! : Buffer.concat(messages));
      queue = queue
        .then(() =>
          db.runExclusive(() =>
            db.execProtocolRawStream(batch, {
              onRawData: (data) => {
                if (open && socket.writable) socket.write(Buffer.from(data));
              },
            }),
          ),
        )
        .catch(() => {
          socket.destroy();
        });
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', finish);
  });
}

/** Listens on a Unix socket path; clients are served one after another. */
export async function listenWire(db: PGlite, path: string): Promise<net.Server> {
  let turn = Promise.resolve();
  const server = net.createServer((socket) => {
    socket.pause();
    turn = turn.then(() => {
      if (socket.destroyed) return;
      const served = serve(db, socket);
      socket.resume();
      return served;
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  return server;
}
