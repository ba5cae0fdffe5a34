// Posting a user message and generating the assistant reply. The user message is stored first,
// under a lease on the chat row (generation_id, generating_until) taken by one conditional UPDATE in
// the same statement, so a second message while a reply is generated is a 409 on every instance.
// The assistant message is stored only when the reply is complete, in the same statement that
// releases the lease; a failed or aborted reply stores nothing and releases the lease. A lease whose process died simply
// expires. Nothing here holds a transaction open while waiting on the model.
import { sql } from 'kysely';
import type { Principal } from '../auth/principal.js';
import { assertCanChat, boardSeenBy, findVisibleBoard } from '../access/board-access.js';
import type { Db } from '../db/schema.js';
import { ApiError, conflict } from '../errors.js';
import { newId, now } from '../lib/ids.js';
import type { ChatModel, Usage } from '../providers/llm/chat-model.js';
import { nodesOfBoard } from '../access/board-nodes.js';
import { findOwnChat } from './chat-service.js';
import type { Citation } from '../contract/chats.js';
import { CitationMarkers, citationOf, resolveCitations } from '../text/citations.js';
import { Message } from '../contract/chats.js';
import { pickShape } from '../contract/common.js';
import { buildContext } from './context.js';
import { type CountTokens, tokenCounter } from '../text/tokens.js';
import type { Retriever } from './retrieval.js';

const MEMORY_MAX = 100;

export interface ReplyDeps {
  db: Db;
  model: ChatModel;
  retriever: Retriever;
  contextTokens: number;
  maxTokens: number;
  timeoutMs: number;
}

export interface PendingReply {
  chatId: string;
  boardId: string;
  boardName: string;
  generationId: string;
  question: string;
  userMessage: Message;
  /** The chat as the lease found it; its memory changes only under the lease. */
  chat: { node_id: string | null; memory: string[]; memory_through: Date | null };
  /** The nodes this reply is limited to: the message's node_ids, else the chat's; none for the whole board. */
  scope: string[] | undefined;
}

export interface CompletedReply {
  message: Message;
  usage: Usage;
}

/** The lease lasts a provider timeout plus a margin, and is renewed while the reply is alive. */
const leaseMs = (deps: ReplyDeps) => deps.timeoutMs + 30_000;

/**
 * Takes the lease and stores the user message in one statement (the visibility of the board, the
 * ownership of the chat and the lease condition all in its WHERE clause), so the reply's first
 * token waits for one database round trip here, not six. Only a refusal asks why.
 */
export async function startReply(
  deps: ReplyDeps,
  principal: Principal,
  boardId: string,
  chatId: string,
  content: string,
  nodeIds?: string[],
): Promise<PendingReply> {
  let scope: string[] | undefined;
  // A member lowered below editor keeps their chats to read, not to go on with.
  assertCanChat(await findVisibleBoard(deps.db, principal, boardId), principal);
  if (nodeIds) {
    // Checked before anything is stored: a bad selection changes nothing.
    await findOwnChat(deps.db, principal, boardId, chatId);
    scope = await nodesOfBoard(deps.db, boardId, nodeIds, 'node_ids');
  }
  const generationId = newId();
  const at = now();
  const until = new Date(at.getTime() + leaseMs(deps));
  const { rows } = await sql<{
    board_name: string;
    node_id: string | null;
    node_ids: string[] | null;
    memory: string[];
    memory_through: Date | null;
    id: string;
    role: 'user';
    content: string;
    model: null;
    created_at: Date;
    metadata: null;
  }>`
    WITH leased AS (
      UPDATE chats c
      SET generation_id = ${generationId}, generating_until = ${until}, last_message_at = ${at}, updated_at = ${at}
      FROM boards b
      WHERE c.id = ${chatId} AND c.board_id = ${boardId} AND c.owner_id = ${principal.userId}
        AND b.id = c.board_id AND ${boardSeenBy(principal, 'b')}
        AND (c.generating_until IS NULL OR c.generating_until < ${at})
      RETURNING c.id, c.node_id, c.node_ids, c.memory, c.memory_through, b.name AS board_name
    ), inserted AS (
      INSERT INTO messages (id, chat_id, role, content, model, metadata, created_at)
      SELECT ${newId()}, leased.id, 'user', ${content}, NULL, NULL, ${at} FROM leased
      RETURNING id, role, content, model, created_at, metadata
    )
    SELECT l.board_name, l.node_id, l.node_ids, l.memory, l.memory_through, i.id, i.role, i.content, i.model, i.created_at, i.metadata
    FROM leased l CROSS JOIN inserted i
  `.execute(deps.db);
  const row = rows[0];
  if (!row) {
    // Board not found, chat not found, or (both there) a reply still being generated.
    await findOwnChat(deps.db, principal, boardId, chatId);
    throw conflict('A reply is still being generated in this chat; wait for it before sending another message');
  }
  return {
    chatId,
    boardId,
    boardName: row.board_name,
    generationId,
    question: content,
    userMessage: pickShape(Message, row),
    chat: { node_id: row.node_id, memory: row.memory, memory_through: row.memory_through },
    scope: scope ?? row.node_ids ?? undefined,
  };
}

/** Ends the lease without storing a reply (failure, abort). */
export async function releaseReply(db: Db, pending: PendingReply): Promise<void> {
  await db
    .updateTable('chats')
    .set({ generation_id: null, generating_until: null })
    .where('id', '=', pending.chatId)
    .where('generation_id', '=', pending.generationId)
    .execute();
}

/**
 * Generates the reply, calling onDelta for each fragment as produced, and stores it. Throws the
 * model's ProviderError when the provider fails, ApiError('upstream_error') when it stays silent
 * past the timeout, or the
 * AbortError of `signal` when the client went away; the lease is released either way.
 */
export async function generateReply(
  deps: ReplyDeps,
  pending: PendingReply,
  signal: AbortSignal,
  onDelta: (content: string) => void,
): Promise<CompletedReply> {
  const upstream = new AbortController();
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  // Re-armed on every provider event: refresh() restarts the same timer, cheaper than a new one per delta.
  const arm = () => {
    if (timer) timer.refresh();
    else
      timer = setTimeout(() => {
        timedOut = true;
        upstream.abort();
      }, deps.timeoutMs);
  };
  const onAbort = () => upstream.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const renew = setInterval(
    () => {
      void deps.db
        .updateTable('chats')
        .set({ generating_until: new Date(Date.now() + leaseMs(deps)) })
        .where('id', '=', pending.chatId)
        .where('generation_id', '=', pending.generationId)
        .execute()
        .catch(() => {});
    },
    Math.max(1000, Math.floor(leaseMs(deps) / 3)),
  );
  renew.unref();
  let stored = false;
  try {
    // Loaded by the first reply of the process: before the provider's clock starts.
    const countTokens = await tokenCounter();
    const contextDeps = { ...deps, countTokens };
    arm();
    const chat = { id: pending.chatId, board_id: pending.boardId, ...pending.chat };
    let context = await buildContext(contextDeps, chat, pending.boardName, pending.question, pending.scope);
    if (context.overflow) {
      const facts = await condense(deps, context.overflow.turns, upstream.signal);
      const memory = [...chat.memory, ...facts].slice(-MEMORY_MAX);
      await deps.db
        .updateTable('chats')
        .set({ memory: JSON.stringify(memory), memory_through: context.overflow.through })
        .where('id', '=', pending.chatId)
        .where('generation_id', '=', pending.generationId)
        .execute();
      context = await buildContext(
        contextDeps,
        { ...chat, memory, memory_through: context.overflow.through },
        pending.boardName,
        pending.question,
        pending.scope,
      );
    }
    arm();
    let content = '';
    let usage: Usage | undefined;
    let finish = 'stop';
    let sources = context.sources;
    const { citable } = context.request;
    const markers = new CitationMarkers(citable.length);
    const quotes = new Map<number, string>();
    const show = (text: string) => {
      if (!text) return;
      content += text;
      onDelta(text);
    };
    for await (const event of deps.model.stream(context.request, upstream.signal)) {
      arm();
      if (event.type === 'delta') show(markers.push(event.content));
      else if (event.type === 'quote') {
        if (!quotes.has(event.passage)) quotes.set(event.passage, event.quote);
      } else {
        usage = event.usage;
        finish = event.finish_reason;
        if (event.sources) sources = event.sources;
      }
    }
    show(markers.end());
    clearTimeout(timer);
    // Some SDK streams end quietly when aborted instead of throwing.
    if (upstream.signal.aborted) throw new Error('aborted');
    usage ??= countUsage(
      countTokens,
      context.request.system,
      context.request.messages.map((m) => m.content),
      content,
    );
    // Markers decide the sources; a reply without any keeps what it drew on, each cited by the
    // sentence of its chunk closest to the reply.
    let citations: Citation[];
    if (markers.cited.length) ({ sources, citations } = resolveCitations(markers, citable, quotes));
    else
      citations = sources.flatMap((id, i) => {
        const passage = citable.find((c) => c.chunkId === id);
        return passage ? [citationOf(i + 1, passage, undefined, content)] : [];
      });
    const metadata = { usage, finish_reason: finish, sources, citations, retrieval: context.retrieval };
    const message = await storeReply(deps, pending, content, metadata);
    stored = true;
    return { message, usage };
  } catch (error) {
    if (signal.aborted) throw abortError(signal);
    if (timedOut) throw new ApiError('upstream_error', `The AI provider did not answer within ${deps.timeoutMs} ms`);
    throw error;
  } finally {
    clearTimeout(timer);
    clearInterval(renew);
    signal.removeEventListener('abort', onAbort);
    if (!stored) await releaseReply(deps.db, pending).catch(() => {});
  }
}

function abortError(signal: AbortSignal): Error {
  const error = new Error('The client went away');
  error.name = 'AbortError';
  error.cause = signal.reason;
  return error;
}

function countUsage(countTokens: CountTokens, system: string, messages: string[], completion: string): Usage {
  const prompt = countTokens(system) + messages.reduce((sum, m) => sum + countTokens(m), 0);
  const out = countTokens(completion);
  return { prompt_tokens: prompt, completion_tokens: out, total_tokens: prompt + out };
}

/** Remote models condense; when that fails the local, extractive memory is kept instead. */
async function condense(deps: ReplyDeps, turns: { role: 'user' | 'assistant'; content: string }[], signal: AbortSignal): Promise<string[]> {
  try {
    const facts = await deps.model.condense(turns, signal);
    if (facts.length) return facts;
  } catch (error) {
    if (signal.aborted) throw error;
  }
  const { LocalChatModel } = await import('../providers/llm/local.js');
  return new LocalChatModel().condense(turns);
}

/** Releases the lease and inserts the assistant message in one statement, so atomically. */
async function storeReply(
  deps: ReplyDeps,
  pending: PendingReply,
  content: string,
  metadata: Record<string, unknown> & { usage: Usage },
): Promise<Message> {
  const at = now();
  const { rows } = await sql<Message>`
    WITH released AS (
      UPDATE chats
      SET generation_id = NULL, generating_until = NULL, last_message_at = ${at}, updated_at = ${at},
        metadata = jsonb_build_object('model', ${deps.model.id}::text,
          'total_tokens', coalesce((metadata->>'total_tokens')::bigint, 0) + ${metadata.usage.total_tokens}::bigint,
          'retrieval', ${String(metadata.retrieval)}::text)
      WHERE id = ${pending.chatId} AND generation_id = ${pending.generationId}
      RETURNING id
    )
    INSERT INTO messages (id, chat_id, role, content, model, metadata, created_at)
    SELECT ${newId()}, released.id, 'assistant', ${content}, ${deps.model.id}, ${JSON.stringify(metadata)}::jsonb, ${at} FROM released
    RETURNING id, role, content, model, created_at, metadata
  `.execute(deps.db);
  // The chat was deleted (or the lease lost to an expiry) while generating: store nothing.
  if (!rows[0]) throw new ApiError('conflict', 'The chat changed while the reply was generated');
  return rows[0];
}
