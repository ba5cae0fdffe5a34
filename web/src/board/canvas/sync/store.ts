// The browser's durable copy of a board (IndexedDB through the `idb` package): the outbox of edits
// not yet confirmed by the service, in the order they were made, and the board as last seen (its
// record, nodes and edges), so a reload while the service is down shows the board with the
// person's pending edits on it. Every call fails soft: without IndexedDB (a private window that
// refuses it) the page still works, only without surviving a reload.
import { type DBSchema, type IDBPDatabase, openDB } from 'idb';
import type { Edge } from '@xyflow/react';
import type { Board } from '../../board-api';
import type { BoardFlowNode } from '../../flow-node';
import type { OutboxOp } from './operations';

/** An operation waiting in the outbox; `seq` (chosen by the outbox, increasing) orders them. */
export interface StoredEntry {
  seq: number;
  boardId: string;
  op: OutboxOp;
}

/** The board as this person last saw it, with their rights then. */
export interface LastSeenBoard {
  id: string;
  board: Board;
  nodes: BoardFlowNode[];
  edges: Edge[];
  isOwner: boolean;
  canEdit: boolean;
  savedAt: number;
}

interface SyncSchema extends DBSchema {
  outbox: { key: number; value: StoredEntry; indexes: { board: string } };
  boards: { key: string; value: LastSeenBoard };
  /** Small values of the app kept on this device (who was signed in last: auth/session.ts). */
  meta: { key: string; value: unknown };
}

let opening: Promise<IDBPDatabase<SyncSchema> | undefined> | undefined;

function database(): Promise<IDBPDatabase<SyncSchema> | undefined> {
  opening ??= openDB<SyncSchema>('board-workspace-sync', 1, {
    upgrade(db) {
      const outbox = db.createObjectStore('outbox', { keyPath: 'seq' });
      outbox.createIndex('board', 'boardId');
      db.createObjectStore('boards', { keyPath: 'id' });
      db.createObjectStore('meta');
    },
  }).catch(() => undefined);
  return opening;
}

/** The board's waiting operations, oldest first. */
export async function readEntries(boardId: string): Promise<StoredEntry[]> {
  const db = await database();
  if (!db) return [];
  try {
    const entries = await db.getAllFromIndex('outbox', 'board', boardId);
    return entries.sort((a, b) => a.seq - b.seq);
  } catch {
    return [];
  }
}

/**
 * Stores new or changed entries and deletes settled ones, in one transaction (transactions on the
 * store run in the order they are made, so a later write never lands before an earlier one).
 */
export async function writeEntries(puts: StoredEntry[], deletes: number[]): Promise<void> {
  const db = await database();
  if (!db) return;
  try {
    const tx = db.transaction('outbox', 'readwrite');
    for (const entry of puts) void tx.store.put({ seq: entry.seq, boardId: entry.boardId, op: entry.op });
    // A stale entry left by a failed delete is replayed safely (client ids, repeatable deletes and updates).
    for (const seq of deletes) void tx.store.delete(seq);
    await tx.done;
  } catch {
    // Kept in the page's memory only.
  }
}

export async function readLastSeen(boardId: string): Promise<LastSeenBoard | undefined> {
  const db = await database();
  try {
    return await db?.get('boards', boardId);
  } catch {
    return undefined;
  }
}

export async function writeLastSeen(value: LastSeenBoard): Promise<void> {
  const db = await database();
  try {
    // Only what draws the board: React Flow's own fields (selection, measurements) stay out.
    const nodes = value.nodes
      .filter((n) => n.type !== 'uploadNode')
      .map((n) => ({ id: n.id, type: n.type, position: n.position, data: n.data }) as BoardFlowNode);
    const edges = value.edges.map((e) => ({
      id: e.id,
      source: e.source,
      target: e.target,
      data: e.data,
      label: e.label,
      markerEnd: e.markerEnd,
    }));
    await db?.put('boards', { ...value, nodes, edges });
  } catch {
    // Not kept: a reload while the service is down shows the message instead.
  }
}

/**
 * Forgets the board as last seen: it was deleted, or this person lost access to it, and a copy
 * of other people's content must not stay on the device (the outbox keeps only their own edits).
 */
export async function forgetLastSeen(boardId: string): Promise<void> {
  const db = await database();
  try {
    await db?.delete('boards', boardId);
  } catch {
    // Nothing kept to forget.
  }
}

export async function readMeta<T>(key: string): Promise<T | undefined> {
  const db = await database();
  try {
    return (await db?.get('meta', key)) as T | undefined;
  } catch {
    return undefined;
  }
}

/** Sets a value (undefined removes it). */
export async function writeMeta(key: string, value: unknown): Promise<void> {
  const db = await database();
  try {
    if (value === undefined) await db?.delete('meta', key);
    else await db?.put('meta', value, key);
  } catch {
    // Not kept: the app then needs the service to open.
  }
}
