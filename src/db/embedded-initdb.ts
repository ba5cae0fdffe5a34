// Creates a new embedded database directory (PostgreSQL's initdb), run as a process of its own by
// embedded.ts on the first start. PGlite's initdb runs a second PostgreSQL beside the one it
// creates and copies the new directory through memory: about 700 MiB at its peak, which WebAssembly
// never gives back to the operating system. In a process that exits when it is done, the service
// itself opens the directory as on any later start (about 265 MiB at its peak: BENCHMARKS.md,
// "Embedded service memory").
import { PGlite } from '@electric-sql/pglite';

const dataDir = process.argv[2];
if (!dataDir) {
  console.error('usage: embedded-initdb <directory>');
  process.exit(2);
}
try {
  const db = await PGlite.create(dataDir);
  await db.close();
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
