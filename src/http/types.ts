// The Fastify instance type every route module receives (TypeBox type provider), and the services
// routes depend on.
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Authenticator } from '../auth/authenticator.js';
import type { Config } from '../config.js';
import type { Db } from '../db/schema.js';

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

export interface Services {
  config: Config;
  db: Db;
  authenticator: Authenticator;
}
