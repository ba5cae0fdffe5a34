// The context of a reply, the same for every provider: a system prompt describing the board, the
// chat's node, the best chunks for the question, the chat's memory, and as much recent history as
// fits LLM_CONTEXT_TOKENS. History that no longer fits (and is not yet in memory) is returned as
// `overflow`, for the caller to condense into memory. Tokens are counted with gpt-tokenizer.
import type { CountTokens } from '../text/tokens.js';
import { sql } from 'kysely';
import type { ChatsTable, Db } from '../db/schema.js';
import type { ChatRequest, ChatTurn, GroundingPassage } from '../providers/llm/chat-model.js';
import { rank } from '../text/relevance.js';
import type { CitablePassage } from '../text/citations.js';
import { retrieve, type Retriever, type RetrievalStatus } from './retrieval.js';

const MAX_NOTES = 5_000;
/** How a model that writes plain text (OpenAI-compatible) is asked to cite the numbered excerpts. */
export const CITE_INSTRUCTION =
  "After each claim that rests on an excerpt, write the excerpt's number in square brackets, like [1] or [2][3]. " +
  'Cite only the numbers listed above.';
const CHUNK_LIMIT = 8;

export interface BuiltContext {
  request: ChatRequest;
  /** Chunk ids placed in the prompt. */
  sources: string[];
  retrieval: RetrievalStatus;
  /** Older turns outside the budget, oldest first, with the creation time of the last one. */
  overflow: { turns: ChatTurn[]; through: Date } | undefined;
}

interface HistoryRow {
  role: 'user' | 'assistant';
  content: string;
  created_at: Date;
}

interface ContextRow {
  node: { id: string; node_type: string; node_data: Record<string, unknown> } | null;
  /** created_at as JSON renders a timestamptz (ISO 8601 with offset). */
  history: { role: 'user' | 'assistant'; content: string; created_at: string }[];
  has_chunks: boolean;
}

const label = (data: Record<string, unknown>, fallback: string): string =>
  typeof data.label === 'string' && data.label.trim() !== '' ? data.label.trim() : typeof data.url === 'string' ? data.url : fallback;

/** Cuts text to at most `tokens` tokens (by characters first, since tokens are at least one). */
function fit(countTokens: CountTokens, text: string, tokens: number): string {
  if (tokens <= 0) return '';
  let cut = text.slice(0, tokens * 6);
  while (cut.length > 0 && countTokens(cut) > tokens) cut = cut.slice(0, Math.floor(cut.length * 0.8));
  return cut;
}

/** Consecutive turns of one role (a failed reply leaves two user turns) become one turn. */
function alternate(turns: ChatTurn[]): ChatTurn[] {
  const out: ChatTurn[] = [];
  for (const t of turns) {
    const last = out.at(-1);
    if (last && last.role === t.role) last.content = `${last.content}\n\n${t.content}`;
    else out.push({ ...t });
  }
  while (out[0]?.role === 'assistant') out.shift();
  return out;
}

export async function buildContext(
  deps: { db: Db; retriever: Retriever; contextTokens: number; maxTokens: number; countTokens: CountTokens },
  chat: Pick<ChatsTable, 'id' | 'board_id' | 'node_id' | 'memory_through'> & { memory: string[] },
  boardName: string,
  question: string,
  /** The nodes this turn is limited to (the message's node_ids, else the chat's), or none. */
  scope?: string[],
): Promise<BuiltContext> {
  const { countTokens } = deps;
  // Two round trips for everything the database holds about the reply: on the embedded database
  // every query waits its turn on one connection, so under load each one saved is felt in the time
  // to the first delta. The notes come as plain rows (json_agg of 1,000 notes measured twice as slow
  // in PGlite); the small parts (the chat's node, the history since memory, whether the board has
  // document chunks at all) share one statement, queued first so that retrieval (when there are
  // chunks) overlaps the notes query.
  const [{ row, retrieved }, notes] = await Promise.all([
    sql<ContextRow>`
      SELECT
        (SELECT json_build_object('id', n.id, 'node_type', n.node_type, 'node_data', n.node_data)
           FROM nodes n WHERE n.id = ${chat.node_id} AND n.board_id = ${chat.board_id}) AS node,
        (SELECT coalesce(json_agg(h ORDER BY h.created_at, h.id), '[]'::json) FROM (
           SELECT id, role, content, created_at FROM messages
           WHERE chat_id = ${chat.id} AND (${chat.memory_through}::timestamptz IS NULL OR created_at > ${chat.memory_through}::timestamptz)) h) AS history,
        EXISTS (SELECT 1 FROM document_chunks WHERE board_id = ${chat.board_id}) AS has_chunks
    `
      .execute(deps.db)
      .then(async ({ rows: [row] }) => ({
        row: row!,
        // No documents yet: the question is not even embedded.
        retrieved: row!.has_chunks
          ? await retrieve(deps.retriever, chat.board_id, question, chat.node_id, CHUNK_LIMIT, scope)
          : { chunks: [], status: 'ok' as const },
      })),
    deps.db
      .selectFrom('nodes')
      .select(['id', sql<string>`node_data->>'text'`.as('text'), sql<string | null>`node_data->>'label'`.as('label')])
      .where('board_id', '=', chat.board_id)
      .where('node_type', 'in', ['note', 'document'])
      .where(sql<boolean>`coalesce(node_data->>'text', '') <> ''`)
      .$if(scope !== undefined, (q) => q.where('id', 'in', scope!))
      .orderBy('created_at', 'desc')
      .limit(MAX_NOTES)
      .execute(),
  ]);
  const { node } = row;
  const history: HistoryRow[] = row.history.map((h) => ({ role: h.role, content: h.content, created_at: new Date(h.created_at) }));

  const passages: GroundingPassage[] = [];
  if (node) {
    const data = node.node_data;
    const text = typeof data.text === 'string' ? data.text : '';
    const name = label(data, node.node_type);
    passages.push({ chunkId: null, nodeId: node.id, source: name, text: text || name, primary: true });
  }
  for (const c of retrieved.chunks)
    passages.push({
      chunkId: c.id,
      nodeId: c.node_id,
      source: c.source,
      text: c.content,
      primary: c.node_id !== null && c.node_id === chat.node_id,
    });
  for (const n of notes)
    if (n.id !== chat.node_id)
      passages.push({ chunkId: null, nodeId: n.id, source: n.label?.trim() || 'a note', text: n.text, primary: false });

  // Budget: the reply's share first, then grounding (at most half of the rest), memory, history.
  const reply = Math.min(deps.maxTokens, Math.floor(deps.contextTokens / 4));
  let budget = deps.contextTokens - reply;
  const parts: string[] = [
    `You are the assistant of a board named "${boardName}" in a visual workspace of notes, documents, links and files. ` +
      'Answer from the board content below when it is relevant, name the sources you use, and say so plainly when the board holds nothing relevant.',
  ];
  if (scope) parts.push('The user asks about a selection of the board: answer from the selected content below.');
  if (node) {
    const data = node.node_data;
    parts.push(
      `This chat is about the ${node.node_type} "${label(data, node.node_type)}"` +
        (typeof data.url === 'string' ? ` (${data.url})` : '') +
        (typeof data.text === 'string' && data.text ? `:\n${data.text}` : '.'),
    );
  }
  let groundingBudget = Math.floor(budget / 2) - countTokens(parts.join('\n\n'));
  const sources: string[] = [];
  const citable: CitablePassage[] = [];
  const chunkLines: string[] = [];
  for (const c of retrieved.chunks) {
    const line = `[${citable.length + 1}] (${c.source}) ${c.content}`;
    const cost = countTokens(line);
    if (cost > groundingBudget) break;
    groundingBudget -= cost;
    chunkLines.push(line);
    sources.push(c.id);
    citable.push({ chunkId: c.id, nodeId: c.node_id, source: c.source, content: c.content, metadata: c.metadata });
  }
  const base = [...parts];
  if (chunkLines.length) parts.push(`Relevant document excerpts, numbered:\n${chunkLines.join('\n')}\n\n${CITE_INSTRUCTION}`);
  const noteLines: string[] = [];
  for (const hit of rank(
    question,
    passages.filter((p) => p.chunkId === null && !p.primary).map((p) => ({ item: p, text: p.text })),
  ).slice(0, 10)) {
    const line = `- (${hit.item.source}) ${hit.text}`;
    const cost = countTokens(line);
    if (cost > groundingBudget) break;
    groundingBudget -= cost;
    noteLines.push(line);
  }
  if (noteLines.length) parts.push(`Relevant notes on the board:\n${noteLines.join('\n')}`);
  if (chat.memory.length) {
    const kept: string[] = [];
    let memoryBudget = Math.floor(budget / 8);
    for (const fact of [...chat.memory].reverse()) {
      const cost = countTokens(fact) + 2;
      if (cost > memoryBudget) break;
      memoryBudget -= cost;
      kept.unshift(fact);
    }
    if (kept.length) parts.push(`What you remember from earlier in this chat:\n${kept.map((f) => `- ${f}`).join('\n')}`);
  }
  const system = parts.join('\n\n');
  const withoutExcerpts = chunkLines.length ? [...base, ...parts.slice(base.length + 1)] : parts;
  budget -= countTokens(system);

  // History, newest first, while it fits; the new question is always sent (cut if it alone is too long).
  const last = history.at(-1);
  const kept: HistoryRow[] = [];
  let i = history.length - 1;
  for (; i >= 0; i--) {
    const row = history[i]!;
    const cost = countTokens(row.content) + 4;
    if (row !== last && cost > budget) break;
    budget -= cost;
    kept.unshift(
      row === last && budget < 0
        ? { ...row, content: fit(countTokens, row.content, cost + budget - 4) || row.content.slice(0, 1000) }
        : row,
    );
  }
  const older = history.slice(0, i + 1);
  const overflow = older.length
    ? { turns: older.map((r) => ({ role: r.role, content: r.content })), through: older.at(-1)!.created_at }
    : undefined;
  const messages = alternate(kept.map((r) => ({ role: r.role, content: r.content })));
  if (messages.length === 0) messages.push({ role: 'user', content: question });
  return {
    request: {
      system,
      systemWithoutExcerpts: withoutExcerpts.join('\n\n'),
      citable,
      messages,
      passages,
      memory: chat.memory,
      maxTokens: reply,
    },
    sources,
    retrieval: retrieved.status,
    overflow,
  };
}
