// Presence on a board: each open tab (a session) announces its cursor and selection, and every
// instance on the database passes the announcement to its streams of that board through the
// `board_presence` notification. The cursor and selection are not stored: an instance remembers the
// announcements of the last PRESENCE_TTL_MS for the boards it has streams of, so a new stream starts
// with who is there; a session that stops announcing is dropped after that time, and one whose
// stream closes leaves at once. Only who owns each session is kept in the database
// (presence_sessions), so that no one else can announce or end it, whichever instance they call.
import { sql } from 'kysely';
import type { Principal } from '../auth/principal.js';
import { forbidden, invalid } from '../errors.js';
import type { Db } from '../db/schema.js';
import type { Presence, PresenceBody } from '../contract/presence.js';

export const BOARD_PRESENCE_CHANNEL = 'board_presence';
/** A session not heard from for this long has left (clients announce every few seconds). */
export const PRESENCE_TTL_MS = 15_000;

const COLORS = ['#e03131', '#c2255c', '#9c36b5', '#6741d9', '#3b5bdb', '#1971c2', '#0c8599', '#099268', '#2f9e44', '#e8590c'];

/** The same colour for a user everywhere: from their id. */
export function colorOf(userId: string): string {
  let hash = 0;
  for (const ch of userId) hash = (hash * 31 + ch.charCodeAt(0)) | 0;
  return COLORS[Math.abs(hash) % COLORS.length]!;
}

/** The user's initial: of their account's email, else of their identity provider subject. */
export async function initialOf(db: Db, userId: string): Promise<string> {
  const row = await db
    .selectFrom('users')
    .leftJoin('accounts', 'accounts.user_id', 'users.id')
    .select(['users.subject', 'accounts.email'])
    .where('users.id', '=', userId)
    .executeTakeFirst();
  const source = (row?.email ?? row?.subject ?? '?').trim();
  return (source.match(/\p{L}|\p{N}/u)?.[0] ?? '?').toUpperCase();
}

/**
 * Sends a session's presence to every instance's streams of the board. A session belongs to the user
 * who first announced it (any of their keys or sign-ins: one person, several tabs) until it leaves or
 * is not heard from for PRESENCE_TTL_MS; anyone else's announcement or leaving of it is refused with
 * 403 and sends nothing. Claiming the session and notifying are one statement, so two instances
 * never both hand out one session.
 */
export async function announcePresence(
  db: Db,
  principal: Principal,
  boardId: string,
  input: PresenceBody & { left?: boolean },
  initial: string,
): Promise<Presence> {
  const presence: Presence = {
    session_id: input.session_id,
    user_id: principal.userId,
    initial,
    color: colorOf(principal.userId),
    cursor: input.cursor ?? null,
    selection: input.selection ?? [],
    dragging: input.dragging ?? [],
    left: input.left ?? false,
  };
  const payload = JSON.stringify({ board_id: boardId, presence: packed(presence) });
  const session = sql`board_id = ${boardId} AND session_id = ${input.session_id}`;
  const since = sql`now() - ${`${PRESENCE_TTL_MS} milliseconds`}::interval`;
  const sent = presence.left
    ? await sql`
        WITH theirs AS (
          SELECT 1 FROM presence_sessions WHERE ${session} AND user_id <> ${principal.userId} AND seen_at > ${since}
        ), gone AS (
          DELETE FROM presence_sessions WHERE ${session} AND NOT EXISTS (SELECT 1 FROM theirs)
        )
        SELECT pg_notify(${BOARD_PRESENCE_CHANNEL}, ${payload}) WHERE NOT EXISTS (SELECT 1 FROM theirs)`.execute(db)
    : await sql`
        WITH claimed AS (
          INSERT INTO presence_sessions AS p (board_id, session_id, user_id, seen_at)
          VALUES (${boardId}, ${input.session_id}, ${principal.userId}, now())
          ON CONFLICT (board_id, session_id) DO UPDATE SET user_id = excluded.user_id, seen_at = excluded.seen_at
          WHERE p.user_id = excluded.user_id OR p.seen_at <= ${since}
          RETURNING 1
        )
        SELECT pg_notify(${BOARD_PRESENCE_CHANNEL}, ${payload}) FROM claimed`.execute(db);
  if (sent.rows.length === 0) throw forbidden('This presence session belongs to someone else');
  return presence;
}

/**
 * The presence as the notification carries it. The payload limit (8,000 bytes) holds 100 selected
 * ids, but not 100 more dragged ones beside them: a dragged node is one of the selection, so it goes
 * as [its index in the selection, x, y] (whole numbers), which fits. `unpackPresence` reverses it.
 */
function packed(presence: Presence): Omit<Presence, 'dragging'> & { dragging: [number, number, number][] } {
  const index = new Map(presence.selection.map((id, i) => [id, i]));
  const dragging = presence.dragging.map((d): [number, number, number] => {
    const i = index.get(d.node_id);
    if (i === undefined) throw invalid(`dragging: node ${d.node_id} is not in the selection (a dragged node is selected)`);
    return [i, d.x, d.y];
  });
  return { ...presence, dragging };
}

/** The presence a notification carried (see `packed`). */
export function unpackPresence(carried: Omit<Presence, 'dragging'> & { dragging?: [number, number, number][] }): Presence {
  const dragging = (carried.dragging ?? []).flatMap(([i, x, y]) => {
    const node_id = carried.selection[i];
    return node_id === undefined ? [] : [{ node_id, x, y }];
  });
  return { ...carried, dragging };
}

/** Forgets the sessions not heard from for their lifetime (the hourly sweep). */
export async function sweepPresence(db: Db): Promise<void> {
  await db
    .deleteFrom('presence_sessions')
    .where('seen_at', '<', new Date(Date.now() - PRESENCE_TTL_MS))
    .execute();
}
