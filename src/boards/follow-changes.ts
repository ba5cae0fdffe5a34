// How kept answers follow a board's changes (list-cache.ts): a page of the node or edge list and a
// single node, each brought through the changes of one commit (BoardChange: the resource as the API
// answers it, a deletion as its id). Every change to a node row is one of node.created, node.updated
// or node.deleted with the row as it was written (node-service.ts: a deletion detaches the children
// and deletes the edges as recorded changes of their own), and every change to an edge row one of
// edge.created, edge.updated or edge.deleted (edge-service.ts), so a page is exact after them;
// anything else on the board leaves it as it is.
import { pickShape } from '../contract/common.js';
import { Edge } from '../contract/edges.js';
import { Node } from '../contract/nodes.js';
import type { BoardChange } from '../events/committed.js';
import { encodeCursor, type KeptPage, type PageRequest, ROWS_BEYOND } from '../lib/pagination.js';
import type { Follow } from './list-cache.js';

type Keyed = { created_at: Date; id: string };

/** The lists' order, ascending: created_at, then id (as PostgreSQL orders uuids: as their text). */
function compareKeys(a: Keyed, b: Keyed): number {
  const t = a.created_at.getTime() - b.created_at.getTime();
  if (t !== 0) return t;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** What a page follows of one kind of resource: its three changes, its shape, and the list's filter. */
interface Followable<T extends Keyed> {
  created: BoardChange['type'];
  updated: BoardChange['type'];
  deleted: BoardChange['type'];
  /** The resource as the list answers it (the change's row may carry more columns). */
  shape(row: T): T;
  /** Whether a created resource belongs to the list (its filter). */
  inList(row: T): boolean;
}

/**
 * A page of a list through the changes of its kind (`list`: the cursor's scope; `page`: as
 * requested), with the rows known right after it (KeptPage): an edited row replaced; a created one
 * placed among the page and the rows after it when it falls there (the page's last then moving to
 * the rows after); a deleted one taken out, the first row after the page moving up into it. When
 * the rows after the page run out while more may follow them, the page is read again: the row that
 * would move up is not known here. A deletion of a row known neither on the page nor after it
 * leaves both as they are: it was before the page or after the rows known, which stay the list's
 * next rows. Every change to a row of the list is one of the three with the row as written, and
 * none changes a row's place in the order or its filter (created_at, id, node_type and an edge's
 * ends never change).
 */
function followPage<T extends Keyed>(kind: Followable<T>, list: string, page: PageRequest): Follow<KeptPage<T>> {
  const precedes = (a: Keyed, b: Keyed) => (page.order === 'asc' ? compareKeys(a, b) < 0 : compareKeys(a, b) > 0);
  const after = page.after && { created_at: page.after.createdAt, id: page.after.id };
  return (kept, changes) => {
    // The page and the rows known after it, as one run of the list's rows.
    let rows: T[] | undefined;
    let { complete } = kept;
    for (const change of changes) {
      if (change.type !== kind.updated && change.type !== kind.created && change.type !== kind.deleted) continue;
      const known = rows ?? [...kept.page.data, ...kept.beyond];
      if (change.type === kind.updated) {
        const row = change.data as T;
        const at = known.findIndex((n) => n.id === row.id);
        if (at < 0) continue;
        known[at] = kind.shape(row);
      } else if (change.type === kind.created) {
        const row = change.data as T;
        if (!kind.inList(row)) continue;
        if (after && !precedes(after, row)) continue;
        const at = known.findIndex((n) => precedes(row, n));
        // After every row known while more may follow them: somewhere past what is kept.
        if (at < 0 && !complete) continue;
        known.splice(at < 0 ? known.length : at, 0, kind.shape(row));
        if (known.length > page.limit + ROWS_BEYOND) {
          known.length = page.limit + ROWS_BEYOND;
          complete = false;
        }
      } else {
        const { id } = change.data as { id: string };
        const at = known.findIndex((n) => n.id === id);
        if (at < 0) continue;
        known.splice(at, 1);
        // The page needs its rows and, to know has_more, one after them.
        if (!complete && known.length <= page.limit) return undefined;
      }
      rows = known;
    }
    if (rows === undefined) return kept;
    const data = rows.slice(0, page.limit);
    const has_more = rows.length > page.limit;
    const last = data[data.length - 1];
    return {
      page: { data, has_more, cursor: has_more && last ? encodeCursor(list, page.order, last.created_at, last.id) : null },
      beyond: rows.slice(page.limit),
      complete,
    };
  };
}

/** A page of a board's nodes (`type`: the list's filter) through the board's changes: see followPage. */
export function followNodePage(list: string, type: string | undefined, page: PageRequest): Follow<KeptPage<Node>> {
  return followPage<Node>(
    {
      created: 'node.created',
      updated: 'node.updated',
      deleted: 'node.deleted',
      shape: (row) => pickShape(Node, row),
      inList: (row) => type === undefined || row.node_type === type,
    },
    list,
    page,
  );
}

/**
 * A page of a board's edges (`nodeId`: only those touching that node, lower case) through the
 * board's changes: see followPage. A node's deletion deletes its edges as recorded changes of their
 * own (edge.deleted, node-service.ts).
 */
export function followEdgePage(list: string, nodeId: string | undefined, page: PageRequest): Follow<KeptPage<Edge>> {
  return followPage<Edge>(
    {
      created: 'edge.created',
      updated: 'edge.updated',
      deleted: 'edge.deleted',
      shape: (row) => pickShape(Edge, row),
      inList: (row) => nodeId === undefined || row.source_node_id === nodeId || row.target_node_id === nodeId,
    },
    list,
    page,
  );
}

/** A single node through changes: an edit replaces it; its deletion is read again (the read answers 404). */
export function followNode(id: string): Follow<Node> {
  return (kept, changes) => {
    let node = kept;
    for (const change of changes) {
      if ((change.data as { id?: string }).id !== id || !change.type.startsWith('node.')) continue;
      if (change.type !== 'node.updated') return undefined;
      node = pickShape(Node, change.data as Node);
    }
    return node;
  };
}
