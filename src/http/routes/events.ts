// /v1/boards/{boardId}/events: the board's change log, as a server-sent event stream (Accept:
// text/event-stream) or as a list to poll.
import { invalid } from '../../errors.js';
import { BoardEventPage, BoardEventQuery } from '../../contract/events.js';
import { Presence, PresenceBody, PresenceSessionId } from '../../contract/presence.js';
import { Type } from '@sinclair/typebox';
import type { StartPoint } from '../../events/event-service.js';
import type { BoardEventStream } from '../../events/event-stream.js';
import { SseWriter } from '../../lib/sse.js';
import { principalOf } from '../plugins/auth.js';
import { BoardParams, errorResponses, Single } from '../schemas/common.js';
import type { App, Services } from '../types.js';

/** Presence announcements per user per minute: a budget of their own, apart from the API's. */
const PRESENCE_PER_MINUTE = 1200;

const description = `With \`Accept: text/event-stream\`, a stream of the board's events as they commit: each has
\`id:\` its sequence number, \`event:\` its type and \`data:\` the event as JSON. It starts after
\`Last-Event-ID\` (or \`after\`), or from now with a \`ready\` event carrying \`latest_seq\`; a point older than
the events kept (EVENT_RETENTION_DAYS) gets a \`reset\` event: reload the board. Comment lines keep it alive.
It ends after \`board.deleted\`, when the board is made private (for others than its owner), or when the
caller's key is revoked. Otherwise a page of the events after \`after\` as JSON, for clients that poll.`;

function lastEventId(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header[0]! : header;
  if (!/^\d{1,15}$/.test(value.trim())) throw invalid('Last-Event-ID must be an event sequence number');
  return Number(value.trim());
}

export function eventRoutes(app: App, services: Services): void {
  const { config, boardEvents, foreground } = services;
  app.get(
    '/v1/boards/:boardId/events',
    {
      schema: {
        tags: ['events'],
        operationId: 'listBoardEvents',
        summary: "Follow a board's changes",
        description,
        params: BoardParams,
        querystring: BoardEventQuery,
        response: {
          200: {
            description: 'The events, as a list or (Accept: text/event-stream) a stream',
            content: {
              'application/json': { schema: BoardEventPage },
              'text/event-stream': { schema: { type: 'string' } },
            },
          },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { boardId } = request.params;
      if (!request.headers.accept?.includes('text/event-stream')) {
        return boardEvents.list(principal, boardId, request.query.after, request.query.limit ?? 100);
      }
      boardEvents.assertStreamRoom(principal);
      const after = lastEventId(request.headers['last-event-id']) ?? request.query.after;
      const sessionId = request.query.session_id;
      // The tab is gone: its session leaves at once rather than when it would have expired.
      const leaveSession = () => {
        if (sessionId) void boardEvents.endSession(principal, boardId, sessionId).catch(() => {});
      };
      // Heard from before the first await: a client that leaves while the start point is read has
      // its 'close' emitted then, and a listener added later would never hear it (the slot would
      // stay taken for good).
      let stream: BoardEventStream | undefined;
      let closed = false;
      reply.raw.on('close', () => {
        closed = true;
        if (!stream) return;
        stream.end();
        leaveSession();
      });
      // The place is taken before the first await and given back once the stream holds its own.
      const reservation = boardEvents.reserveStream(principal);
      let start: StartPoint;
      try {
        start = await boardEvents.startPoint(principal, boardId, after);
      } finally {
        reservation();
      }
      reply.hijack();
      if (closed || reply.raw.destroyed) {
        leaveSession();
        return;
      }
      const sse = new SseWriter(reply.raw, reply.getHeaders() as Record<string, string>, config.sseKeepAliveMs);
      // An open stream waits without querying: background work must not wait for it to end.
      foreground.stopCounting(reply.raw);
      if (start.reset)
        sse.event(
          'reset',
          { latest_seq: start.latest, reason: 'The events after this point are no longer kept: reload the board' },
          start.latest,
        );
      else if (after === undefined) sse.event('ready', { latest_seq: start.latest }, start.latest);
      stream = boardEvents.stream(principal, start, sse);
      stream.start();
    },
  );

  const presenceLimit = {
    rateLimit: {
      max: PRESENCE_PER_MINUTE,
      timeWindow: 60_000,
      keyGenerator: (request: { principal?: { userId: string } }) => `presence:${request.principal?.userId}`,
    },
    scope: 'read' as const,
  };

  app.put(
    '/v1/boards/:boardId/presence',
    {
      config: presenceLimit,
      schema: {
        tags: ['events'],
        operationId: 'announcePresence',
        summary: 'Announce your presence on a board',
        description: `Tells the board's other viewers that this session is there, with its cursor and selection (event
\`presence\` on their streams), and the nodes it is dragging now, where they are (\`dragging\`: each one of the
selection, a live preview; the move is saved by its own update on drop). Announce every few seconds: a session
not heard from for 15 seconds has left.
Needs only read access; not stored. Its own budget of ${PRESENCE_PER_MINUTE} a minute per user. A session belongs to
the user who first announced it until it leaves or goes quiet: another user naming it gets 403 \`forbidden\`.`,
        params: BoardParams,
        body: PresenceBody,
        response: { 200: Single('presence', Presence), ...errorResponses },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { boardId } = request.params;
      return { object: 'presence' as const, data: await boardEvents.announce(principal, boardId, request.body) };
    },
  );

  app.delete(
    '/v1/boards/:boardId/presence/:sessionId',
    {
      config: presenceLimit,
      schema: {
        tags: ['events'],
        operationId: 'leaveBoard',
        summary: 'Leave a board',
        description: "Ends one of the caller's sessions on the board at once; another user's session is 403 `forbidden`.",
        params: Type.Object({ boardId: BoardParams.properties.boardId, sessionId: PresenceSessionId }),
        response: { 200: Single('presence', Presence), ...errorResponses },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { boardId, sessionId } = request.params;
      return { object: 'presence' as const, data: await boardEvents.leave(principal, boardId, sessionId) };
    },
  );
}
