// Entry point: reads the configuration, opens the database, serves HTTP, and shuts down cleanly on
// SIGTERM/SIGINT (in-flight requests drain, then the database closes).
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/database.js';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  const database = await openDatabase(config);
  const built = await buildApp(config, database);
  const address = await built.app.listen({ port: config.port, host: config.host });
  built.app.log.info(
    `board workspace service listening on ${address} (${database.embedded ? `embedded database in ${config.dataDir}` : 'PostgreSQL'})`,
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    built.app.log.info(`${signal}: draining requests`);
    const force = setTimeout(
      () => {
        built.app.log.error('shutdown grace period over; exiting');
        process.exit(1);
      },
      config.shutdownGraceSeconds * 1000 + 5000,
    );
    force.unref();
    try {
      await built.close();
      await database.close();
      process.exit(0);
    } catch (error) {
      built.app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error) => {
  console.error('Failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
