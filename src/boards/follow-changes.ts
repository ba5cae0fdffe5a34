// How kept answers follow a board's changes (list-cache.ts): a page of the node list and a single
// node, each brought through the changes of one commit (BoardChange: the resource as
// the API answers it, a deletion as its id). Every change to a node row is one of node.created,
// node.updated or node.deleted with the row as it was written (node-service.ts: a deletion detaches
// the children and deletes the edges as recorded changes of their own), so a node page is exact after
// them; anything else on the board leaves it as it is.
import { pickShape } from '../contract/common.js';
import { Node } from '../contract/nodes.js';
import { encodeCursor, type Page, type PageRequest } from '../lib/pagination.js';
import type { Follow } from './list-cache.js';

type Keyed = { created_at: Date; id: string };

/** The lists' order, ascending: created_at, then id (as PostgreSQL orders uuids: as their text). */
function compareKeys(a: Keyed, b: Keyed): number {
  const t = a.created_at.getTime() - b.created_at.getTime();
  if (t !== 0) return t;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * A page of a board's nodes (`list`: the cursor's scope, `type`: the filter, `page`: as requested)
 * through node changes: an edited node on the page replaced, a created node placed in the page's
 * range (the last one then pushed out to the next page), a deleted one taken out, unless more follow
 * the page: the one that would move up is not known here, so the page is read again.
 */
export function followNodePage(list: string, type: string | undefined, page: PageRequest): Follow<Page<Node>> {
  const precedes = (a: Keyed, b: Keyed) => (page.order === 'asc' ? compareKeys(a, b) < 0 : compareKeys(a, b) > 0);
  const after = page.after && { created_at: page.after.createdAt, id: page.after.id };
  return (kept, changes) => {
    let { data, has_more } = kept;
    let changed = false;
    for (const change of changes) {
      if (change.type === 'node.updated') {
        const node = change.data as Node;
        const at = data.findIndex((n) => n.id === node.id);
        if (at < 0) continue;
        data = [...data];
        data[at] = pickShape(Node, node);
        changed = true;
      } else if (change.type === 'node.created') {
        const node = change.data as Node;
        if (type !== undefined && node.node_type !== type) continue;
        if (after && !precedes(after, node)) continue;
        const at = data.findIndex((n) => precedes(node, n));
        data = [...data];
        data.splice(at < 0 ? data.length : at, 0, pickShape(Node, node));
        if (data.length > page.limit) {
          data = data.slice(0, page.limit);
          has_more = true;
        }
        changed = true;
      } else if (change.type === 'node.deleted') {
        const { id } = change.data as { id: string };
        const at = data.findIndex((n) => n.id === id);
        if (at < 0) continue;
        if (has_more) return undefined;
        data = data.filter((n) => n.id !== id);
        changed = true;
      }
    }
    if (!changed) return kept;
    const last = data[data.length - 1];
    return { data, has_more, cursor: has_more && last ? encodeCursor(list, page.order, last.created_at, last.id) : null };
  };
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
