// The person's own changes to the board, for undo and redo (use-board-edits.ts records them and
// makes their inverses on the board as it is now: edits/reapply.ts). Changes arriving from other
// people (the event stream) are never recorded.
// The API cannot re-create a deleted node under its old id, so undoing a deletion gives the node a
// new id: the history keeps every node and edge under the id it had when first recorded (its
// "logical" id) and maps that to the id it has now, so older and newer entries keep pointing at
// it whatever was deleted and restored in between.
import type { XYPosition } from '@xyflow/react';
import type { ApiNodeType } from '../../board-api';

export interface NodeSnapshot {
  id: string;
  type: ApiNodeType;
  position: XYPosition;
  data: Record<string, unknown>;
}

export interface EdgeSnapshot {
  id: string;
  source: string;
  target: string;
  data: Record<string, unknown>;
}

export interface NodeMove {
  id: string;
  from: XYPosition;
  to: XYPosition;
}

/** A change as it was made; its inverse undoes it. */
export type HistoryChange =
  /** Nodes and edges that came into being (a new note, a paste, a connection). */
  | { kind: 'create'; nodes: NodeSnapshot[]; edges: EdgeSnapshot[] }
  /** Nodes and edges deleted (the edges of deleted nodes included). */
  | { kind: 'delete'; nodes: NodeSnapshot[]; edges: EdgeSnapshot[] }
  | { kind: 'move'; moves: NodeMove[] }
  | { kind: 'text'; id: string; from: string; to: string }
  /** Keys of a node's data (size, colour, title; null: the key was absent), with a resize's position. */
  | { kind: 'data'; id: string; from: DataKeys; to: DataKeys; position?: { from: XYPosition; to: XYPosition } }
  /** Keys of a connection's data (colour, label). */
  | { kind: 'edgeData'; id: string; from: DataKeys; to: DataKeys };

export type DataKeys = Record<string, unknown>;

/** The change that undoes `change`. */
export function invert(change: HistoryChange): HistoryChange {
  switch (change.kind) {
    case 'create':
      return { ...change, kind: 'delete' };
    case 'delete':
      return { ...change, kind: 'create' };
    case 'move':
      return { kind: 'move', moves: change.moves.map((m) => ({ id: m.id, from: m.to, to: m.from })) };
    case 'text':
      return { ...change, from: change.to, to: change.from };
    case 'edgeData':
      return { ...change, from: change.to, to: change.from };
    case 'data':
      return {
        ...change,
        from: change.to,
        to: change.from,
        position: change.position && { from: change.position.to, to: change.position.from },
      };
  }
}

/** The ids a change refers to (nodes, and edges for create/delete). */
export function nodeIdsOf(change: HistoryChange): string[] {
  switch (change.kind) {
    case 'create':
    case 'delete':
      return change.nodes.map((n) => n.id);
    case 'move':
      return change.moves.map((m) => m.id);
    case 'text':
    case 'data':
      return [change.id];
    case 'edgeData':
      return [];
  }
}

const MAX_ENTRIES = 200;

interface Entry {
  change: HistoryChange;
  /** Set while the entry may still grow (typing in one note, arrow-key steps); see `record`. */
  openKey?: string;
}

export class EditHistory {
  private undoStack: Entry[] = [];
  private redoStack: Entry[] = [];
  /** logical id -> the id the node or edge has now. */
  private readonly current = new Map<string, string>();
  /** an id it has now -> its logical id. */
  private readonly logical = new Map<string, string>();
  private listeners = new Set<() => void>();

  /** The id the node or edge recorded as `id` has now. */
  resolve(id: string): string {
    return this.current.get(id) ?? id;
  }

  /** The node or edge recorded as `logicalId` was re-created as `newId`. */
  remap(logicalId: string, newId: string): void {
    const root = this.logical.get(logicalId) ?? logicalId;
    this.current.set(root, newId);
    this.logical.set(newId, root);
  }

  private toLogical(id: string): string {
    return this.logical.get(id) ?? id;
  }

  private canonical(change: HistoryChange): HistoryChange {
    const l = (id: string) => this.toLogical(id);
    switch (change.kind) {
      case 'create':
      case 'delete':
        return {
          kind: change.kind,
          nodes: change.nodes.map((n) => ({ ...n, id: l(n.id) })),
          edges: change.edges.map((e) => ({ ...e, id: l(e.id), source: l(e.source), target: l(e.target) })),
        };
      case 'move':
        return { kind: 'move', moves: change.moves.map((m) => ({ ...m, id: l(m.id) })) };
      case 'text':
      case 'data':
      case 'edgeData':
        return { ...change, id: l(change.id) };
    }
  }

  /**
   * Records a change the person made (ids as they are now). With `openKey`, a change recorded
   * right after another with the same key, still open, joins it (one entry for a burst of typing
   * in one note or of arrow-key steps) until `seal(openKey)`.
   */
  record(change: HistoryChange, openKey?: string): void {
    const next = this.canonical(change);
    const top = this.undoStack.at(-1);
    if (openKey && top?.openKey === openKey) {
      top.change = merge(top.change, next);
    } else {
      this.sealAll();
      this.undoStack.push({ change: next, openKey });
      if (this.undoStack.length > MAX_ENTRIES) this.undoStack.shift();
    }
    this.redoStack = [];
    this.emit();
  }

  /** Ends the growing of the open entry under `key`, if it is the newest. */
  seal(key: string): void {
    const top = this.undoStack.at(-1);
    if (top?.openKey === key) top.openKey = undefined;
  }

  private sealAll(): void {
    for (const entry of this.undoStack) entry.openKey = undefined;
  }

  /** Takes the newest change to undo (the caller applies its inverse, then `undone`). */
  takeUndo(): HistoryChange | undefined {
    this.sealAll();
    const entry = this.undoStack.pop();
    this.emit();
    return entry?.change;
  }

  takeRedo(): HistoryChange | undefined {
    const entry = this.redoStack.pop();
    this.emit();
    return entry?.change;
  }

  /** The change taken by takeUndo was undone: it may be redone. */
  undone(change: HistoryChange): void {
    this.redoStack.push({ change });
    this.emit();
  }

  /** The change taken by takeRedo was made again: it may be undone again. */
  redone(change: HistoryChange): void {
    this.undoStack.push({ change });
    this.emit();
  }

  canUndo(): boolean {
    return this.undoStack.length > 0;
  }

  canRedo(): boolean {
    return this.redoStack.length > 0;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}

/** `later` joined onto `earlier` (both of one open key, so of one kind). */
function merge(earlier: HistoryChange, later: HistoryChange): HistoryChange {
  if (earlier.kind === 'text' && later.kind === 'text' && earlier.id === later.id) return { ...earlier, to: later.to };
  if (earlier.kind === 'move' && later.kind === 'move') {
    const moves = new Map(earlier.moves.map((m) => [m.id, { ...m }]));
    for (const m of later.moves) {
      const had = moves.get(m.id);
      moves.set(m.id, had ? { ...had, to: m.to } : m);
    }
    return { kind: 'move', moves: [...moves.values()] };
  }
  return later;
}
