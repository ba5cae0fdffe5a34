// Stripe-style Idempotency-Key on every POST. The first outcome (status, body and the headers that
// matter) is kept per user and key for 24 hours and replayed for a retry with the same request;
// the same key with a different request is 409; a retry that arrives while the first request is
// still running waits for it, then gets 409 if it is still not done. Server errors (5xx) and 429s
// ("retry later", e.g. a full job queue) are not kept, so a retry can run again. Written by hand: no maintained Fastify plugin keeps this state
// in PostgreSQL, and the rules above are part of our contract.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../../db/schema.js';
import { conflict, invalid } from '../../errors.js';
import { now } from '../../lib/ids.js';

const TTL_MS = 24 * 60 * 60 * 1000;
/** A first request still marked running after this long is taken to have died with its process. */
const ABANDONED_MS = 60_000;
const WAIT_MS = 10_000;
const POLL_MS = 50;
const REPLAYED_HEADERS = ['content-type', 'location', 'etag'];

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: { principal: string; key: string };
  }
}

function requestHash(request: FastifyRequest): string {
  let body: string;
  try {
    body = JSON.stringify(request.body ?? null);
  } catch {
    // JSON.parse accepts nesting thousands of levels deep that JSON.stringify then overflows the
    // stack on (found by test/fuzz.test.ts). No route takes such a body: refuse it here as a 400.
    throw invalid('Request body is nested too deeply');
  }
  return createHash('sha256').update(`${request.method} ${request.routeOptions.url} ${request.url}\n`).update(body).digest('hex');
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return text.length > 0;
  } catch {
    return false;
  }
}

export function registerIdempotency(app: FastifyInstance, db: Db): void {
  app.decorateRequest('idempotency', undefined);

  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method !== 'POST' || !request.principal) return;
    const header = request.headers['idempotency-key'];
    if (header === undefined) return;
    if (typeof header !== 'string' || header.length < 1 || header.length > 255) {
      throw invalid('Idempotency-Key must be 1 to 255 characters');
    }
    const principal = request.principal.userId;
    const hash = requestHash(request);
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const created = now();
      const inserted = await db
        .insertInto('idempotency_keys')
        .values({ principal, key: header, request_hash: hash, status: null, response: null, headers: null, created_at: created })
        .onConflict((oc) =>
          // Expired or abandoned entries are taken over by this request.
          oc
            .columns(['principal', 'key'])
            .doUpdateSet({ request_hash: hash, status: null, response: null, headers: null, created_at: created })
            .where(sql<boolean>`(idempotency_keys.status IS NOT NULL AND idempotency_keys.created_at < ${new Date(created.getTime() - TTL_MS)})
              OR (idempotency_keys.status IS NULL AND idempotency_keys.created_at < ${new Date(created.getTime() - ABANDONED_MS)})`),
        )
        .returning('key')
        .executeTakeFirst();
      if (inserted) {
        request.idempotency = { principal, key: header };
        return;
      }
      const existing = await db
        .selectFrom('idempotency_keys')
        .select(['request_hash', 'status', 'response', 'headers'])
        .where('principal', '=', principal)
        .where('key', '=', header)
        .executeTakeFirst();
      if (!existing) continue; // removed after a failure: try to take it
      if (existing.request_hash !== hash) {
        throw conflict('This Idempotency-Key was already used with a different request');
      }
      if (existing.status !== null && existing.response === null) {
        // Spent by a reply that was streamed (spendIdempotencyKey): there is nothing to replay.
        throw conflict('This Idempotency-Key was already used; streamed replies are not replayed');
      }
      if (existing.status !== null) {
        for (const [name, value] of Object.entries(existing.headers ?? {})) reply.header(name, value);
        reply.header('idempotent-replayed', 'true');
        // Kept as a JSON string holding the exact bytes sent (a jsonb object would reorder keys).
        const body =
          existing.response === null
            ? undefined
            : typeof existing.response === 'string'
              ? existing.response
              : JSON.stringify(existing.response);
        return reply.code(existing.status).send(body);
      }
      if (Date.now() >= deadline) {
        throw conflict('A request with this Idempotency-Key is still being processed');
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const entry = request.idempotency;
    if (!entry) return payload;
    request.idempotency = undefined;
    const forget = () => db.deleteFrom('idempotency_keys').where('principal', '=', entry.principal).where('key', '=', entry.key).execute();
    const record = (response: string | null, headers: string | null) => recordOutcome(db, entry, reply.statusCode, response, headers);
    try {
      if (reply.statusCode >= 500 || reply.statusCode === 429) {
        await forget();
        return payload;
      }
      if (typeof payload !== 'string' || !isJson(payload)) {
        // Not a JSON answer we could replay faithfully: free the key so a retry runs again.
        await forget();
        return payload;
      }
      const headers: Record<string, string> = {};
      for (const name of REPLAYED_HEADERS) {
        const value = reply.getHeader(name);
        if (typeof value === 'string') headers[name] = value;
      }
      await record(JSON.stringify(payload), JSON.stringify(headers));
    } catch (error) {
      // The answer itself succeeded; failing to record it must not turn it into a 500. The entry
      // stays "running" and is taken over once abandoned.
      request.log.warn({ err: error }, 'could not record the idempotent outcome');
    }
    return payload;
  });

  // A request that fails before onSend (a dropped connection) must not hold its key.
  app.addHook('onResponse', async (request) => {
    const entry = request.idempotency;
    if (!entry) return;
    await db
      .deleteFrom('idempotency_keys')
      .where('principal', '=', entry.principal)
      .where('key', '=', entry.key)
      .where('status', 'is', null)
      .execute()
      .catch((error: unknown) => request.log.warn({ err: error }, 'could not release an idempotency key'));
  });
}

/**
 * For a route that hijacks its reply (a streamed message): onSend never runs there, so the route
 * spends the key itself once it starts streaming. The key then stays used (409 for a retry).
 */
export async function spendIdempotencyKey(db: Db, request: FastifyRequest, status: number): Promise<void> {
  const entry = request.idempotency;
  if (!entry) return;
  request.idempotency = undefined;
  await recordOutcome(db, entry, status, null, null).catch((error: unknown) =>
    request.log.warn({ err: error }, 'could not record the idempotent outcome'),
  );
}

/** Marks a key's request as finished with this outcome (a null response: used, never replayed). */
async function recordOutcome(
  db: Db,
  entry: { principal: string; key: string },
  status: number,
  response: string | null,
  headers: string | null,
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ status, response, headers })
    .where('principal', '=', entry.principal)
    .where('key', '=', entry.key)
    .execute();
}

/** Deletes entries past their 24 hours; run periodically. */
export async function sweepIdempotencyKeys(db: Db): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', new Date(Date.now() - TTL_MS))
    .execute();
}
