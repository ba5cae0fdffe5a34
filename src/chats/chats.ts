// The chats' service: a board's chats (chat-service.ts) and their replies (reply-service.ts), built
// once per app with the database, the chat model, the retriever over the board's chunks and the
// model's bounds (src/modules/services.ts), so routes and MCP tools call it with the request's values only.
import type { Principal } from '../auth/principal.js';
import type { Chat, ChatListItem, CreateChatBody, Message } from '../contract/chats.js';
import type { Db } from '../db/schema.js';
import type { Page, PageRequest } from '../lib/pagination.js';
import type { Embedder } from '../providers/embeddings/embedder.js';
import type { ChatModel } from '../providers/llm/chat-model.js';
import { createChat, deleteChat, getChat, listChats, listMessages, renameChat } from './chat-service.js';
import { type CompletedReply, generateReply, type PendingReply, type ReplyDeps, startReply } from './reply-service.js';
import { boardRetriever } from './retrieval.js';

export interface ChatDeps {
  db: Db;
  model: ChatModel;
  embedder: Embedder;
  /** LLM_CONTEXT_TOKENS, LLM_MAX_TOKENS, LLM_TIMEOUT_MS. */
  contextTokens: number;
  maxTokens: number;
  timeoutMs: number;
}

export class ChatService {
  private readonly reply: ReplyDeps;

  constructor(private readonly deps: ChatDeps) {
    const { db, model, embedder, contextTokens, maxTokens, timeoutMs } = deps;
    this.reply = { db, model, retriever: boardRetriever(db, embedder), contextTokens, maxTokens, timeoutMs };
  }

  create(principal: Principal, boardId: string, input: CreateChatBody): Promise<Chat> {
    return createChat(this.deps.db, principal, boardId, input);
  }

  list(principal: Principal, boardId: string, page: PageRequest, list: string): Promise<Page<ChatListItem>> {
    return listChats(this.deps.db, principal, boardId, page, list);
  }

  get(principal: Principal, boardId: string, chatId: string): Promise<Chat> {
    return getChat(this.deps.db, principal, boardId, chatId);
  }

  rename(principal: Principal, boardId: string, chatId: string, title: string): Promise<Chat> {
    return renameChat(this.deps.db, principal, boardId, chatId, title);
  }

  delete(principal: Principal, boardId: string, chatId: string): Promise<void> {
    return deleteChat(this.deps.db, principal, boardId, chatId);
  }

  listMessages(principal: Principal, boardId: string, chatId: string, page: PageRequest, list: string): Promise<Page<Message>> {
    return listMessages(this.deps.db, principal, boardId, chatId, page, list);
  }

  /** Stores the user message under the chat's lease (reply-service.ts); `nodeIds` limits this reply to those nodes. */
  startReply(principal: Principal, boardId: string, chatId: string, content: string, nodeIds?: string[]): Promise<PendingReply> {
    return startReply(this.reply, principal, boardId, chatId, content, nodeIds);
  }

  /** Generates and stores the reply, calling onDelta for each fragment; releases the lease either way. */
  generateReply(pending: PendingReply, signal: AbortSignal, onDelta: (content: string) => void): Promise<CompletedReply> {
    return generateReply(this.reply, pending, signal, onDelta);
  }
}
