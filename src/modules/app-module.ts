// What a domain adds to the app: its routes, the job types it handles and its background tasks. The
// app factory builds the services once and hands them to every module in src/modules/modules.ts, so
// a new feature is one module there rather than more lines in src/app.ts.
import type { JobHandler } from '../jobs/worker.js';
import type { App, Services } from '../http/types.js';

/** The services a module's job handlers are built from (the job worker is built from the handlers). */
export type JobDeps = Omit<Services, 'jobs'>;

export interface AppModule {
  /** Registers the domain's routes. */
  routes?(app: App, services: Services): void | Promise<void>;
  /** The domain's job handlers by job type. */
  jobs?(deps: JobDeps): Record<string, JobHandler>;
  /** Work to do once before the app serves (after the database is open, before requests). */
  prepare?(services: Services): Promise<void>;
  /** Adds the domain's background tasks to `services.background`. */
  background?(services: Services): void;
}
