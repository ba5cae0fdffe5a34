// The Fastify instance type every route module receives (TypeBox type provider), and the services
// routes depend on.
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Authenticator } from '../auth/authenticator.js';
import type { Config } from '../config.js';
import type { Db } from '../db/schema.js';
import type { JobWorker } from '../jobs/worker.js';
import type { Embedder } from '../providers/embeddings/embedder.js';
import type { Storage } from '../providers/storage/storage.js';

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export interface Services {
  config: Config;
  db: Db;
  authenticator: Authenticator;
  embedder: Embedder;
  /** The background job worker; wake() after queueing a job. */
  jobs: JobWorker;
  /** Where asset files live (local directory or S3-compatible bucket). */
  storage: Storage;
}
