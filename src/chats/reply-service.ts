// Posting a user message and generating the assistant reply. The user message is stored first,
// under a lease on the chat row (generation_id, generating_until) taken by one conditional UPDATE,
// so a second message while a reply is generated is a 409 on every instance. The assistant message
// is stored only when the reply is complete, in the same transaction that releases the lease; a
// failed or aborted reply stores nothing and releases the lease. A lease whose process died simply
// expires. Nothing here holds a transaction open while waiting on the model.
import { countTokens } from 'gpt-tokenizer';
import { sql } from 'kysely';
import type { Principal } from '../auth/principal.js';
import { findVisibleBoard } from '../boards/access.js';
import type { Db } from '../db/schema.js';
import { ApiError, conflict } from '../errors.js';
import { newId, now } from '../lib/ids.js';
import { ProviderError, type ChatModel, type Usage } from '../providers/llm/chat-model.js';
import { findOwnChat, toMessageView, type MessageView } from './chat-service.js';
import { buildContext } from './context.js';
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
  userMessage: MessageView;
}

export interface CompletedReply {
  message: MessageView;
  usage: Usage;
}

/** The lease lasts a provider timeout plus a margin, and is renewed while the reply is alive. */
const leaseMs = (deps: ReplyDeps) => deps.timeoutMs + 30_000;

export async function startReply(deps: ReplyDeps, principal: Principal, boardId: string, chatId: string, content: string): Promise<PendingReply> {
  const board = await findVisibleBoard(deps.db, principal, boardId);
  await findOwnChat(deps.db, principal, boardId, chatId);
  const generationId = newId();
  const at = now();
  const userMessage = await deps.db.transaction().execute(async (trx) => {
    const leased = await trx
      .updateTable('chats')
      .set({ generation_id: generationId, generating_until: new Date(at.getTime() + leaseMs(deps)), last_message_at: at, updated_at: at })
      .where('id', '=', chatId)
      .where('owner_id', '=', principal.userId)
      .where((eb) => eb.or([eb('generating_until', 'is', null), eb('generating_until', '<', at)]))
      .returning('id')
      .executeTakeFirst();
    if (!leased) {
      const exists = await trx.selectFrom('chats').select('id').where('id', '=', chatId).executeTakeFirst();
      if (!exists) throw new ApiError('not_found', 'Chat not found');
      throw conflict('A reply is still being generated in this chat; wait for it before sending another message');
    }
    const row = await trx
      .insertInto('messages')
      .values({ id: newId(), chat_id: chatId, role: 'user', content, model: null, metadata: null, created_at: at })
      .returning(['id', 'role', 'content', 'model', 'created_at', 'metadata'])
      .executeTakeFirstOrThrow();
    return toMessageView(row);
  });
  return { chatId, boardId, boardName: board.name, generationId, question: content, userMessage };
}

/** Ends the lease without storing a reply (failure, abort). */
export async function releaseReply(db: Db, pending: PendingReply): Promise<void> {
  await db.updateTable('chats').set({ generation_id: null, generating_until: null })
    .where('id', '=', pending.chatId).where('generation_id', '=', pending.generationId).execute();
}

/**
 * Generates the reply, calling onDelta for each fragment as produced, and stores it. Throws an
 * ApiError('upstream_error') when the provider fails or stays silent past the timeout, or the
 * AbortError of `signal` when the client went away; the lease is released either way.
 */
export async function generateReply(deps: ReplyDeps, pending: PendingReply, signal: AbortSignal, onDelta: (content: string) => void): Promise<CompletedReply> {
  const upstream = new AbortController();
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => { timedOut = true; upstream.abort(); }, deps.timeoutMs);
  };
  const onAbort = () => upstream.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const renew = setInterval(() => {
    void deps.db.updateTable('chats').set({ generating_until: new Date(Date.now() + leaseMs(deps)) })
      .where('id', '=', pending.chatId).where('generation_id', '=', pending.generationId).execute().catch(() => {});
  }, Math.max(1000, Math.floor(leaseMs(deps) / 3)));
  renew.unref();
  let stored = false;
  try {
    arm();
    const chat = await deps.db.selectFrom('chats').select(['id', 'board_id', 'node_id', 'memory', 'memory_through']).where('id', '=', pending.chatId).executeTakeFirst();
    if (!chat) throw new ApiError('not_found', 'Chat not found');
    let context = await buildContext(deps, chat, pending.boardName, pending.question);
    if (context.overflow) {
      const facts = await condense(deps, context.overflow.turns, upstream.signal);
      const memory = [...chat.memory, ...facts].slice(-MEMORY_MAX);
      await deps.db.updateTable('chats').set({ memory: JSON.stringify(memory), memory_through: context.overflow.through })
        .where('id', '=', pending.chatId).where('generation_id', '=', pending.generationId).execute();
      context = await buildContext(deps, { ...chat, memory, memory_through: context.overflow.through }, pending.boardName, pending.question);
    }
    arm();
    let content = '';
    let usage: Usage | undefined;
    let finish = 'stop';
    let sources = context.sources;
    for await (const event of deps.model.stream(context.request, upstream.signal)) {
      arm();
      if (event.type === 'delta') {
        content += event.content;
        onDelta(event.content);
      } else {
        usage = event.usage;
        finish = event.finish_reason;
        if (event.sources) sources = event.sources;
      }
    }
    clearTimeout(timer);
    // Some SDK streams end quietly when aborted instead of throwing.
    if (upstream.signal.aborted) throw new Error('aborted');
    usage ??= countUsage(context.request.system, context.request.messages.map((m) => m.content), content);
    const metadata = { usage, finish_reason: finish, sources, retrieval: context.retrieval };
    const message = await storeReply(deps, pending, content, metadata);
    stored = true;
    return { message, usage };
  } catch (error) {
    if (signal.aborted) throw abortError(signal);
    if (timedOut) throw new ApiError('upstream_error', `The AI provider did not answer within ${deps.timeoutMs} ms`);
    if (error instanceof ProviderError) throw new ApiError('upstream_error', error.message);
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

function countUsage(system: string, messages: string[], completion: string): Usage {
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

async function storeReply(deps: ReplyDeps, pending: PendingReply, content: string, metadata: Record<string, unknown> & { usage: Usage }): Promise<MessageView> {
  return deps.db.transaction().execute(async (trx) => {
    const at = now();
    const released = await trx
      .updateTable('chats')
      .set({
        generation_id: null,
        generating_until: null,
        last_message_at: at,
        updated_at: at,
        metadata: sql`jsonb_build_object('model', ${deps.model.id}::text, 'total_tokens', coalesce((metadata->>'total_tokens')::bigint, 0) + ${metadata.usage.total_tokens}::bigint, 'retrieval', ${String(metadata.retrieval)}::text)` as never,
      })
      .where('id', '=', pending.chatId)
      .where('generation_id', '=', pending.generationId)
      .returning('id')
      .executeTakeFirst();
    // The chat was deleted (or the lease lost to an expiry) while generating: store nothing.
    if (!released) throw new ApiError('conflict', 'The chat changed while the reply was generated');
    const row = await trx
      .insertInto('messages')
      .values({ id: newId(), chat_id: pending.chatId, role: 'assistant', content, model: deps.model.id, metadata: JSON.stringify(metadata), created_at: at })
      .returning(['id', 'role', 'content', 'model', 'created_at', 'metadata'])
      .executeTakeFirstOrThrow();
    return toMessageView(row);
  });
}
