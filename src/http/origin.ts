// The address the caller used (scheme and host, from X-Forwarded-* of trusted peers behind a proxy):
// what the services build asset urls from when PUBLIC_BASE_URL is not set.
import type { FastifyRequest } from 'fastify';
import type { Origin } from '../assets/asset-service.js';

/** The request's value services take for asset urls: `{ origin }` in their options. */
export const originOf = (request: FastifyRequest): Origin => ({ origin: `${request.protocol}://${request.host}` });
