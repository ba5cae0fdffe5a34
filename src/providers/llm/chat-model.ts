// The one interface every chat model implements (local, openai, anthropic). Routes and the reply
// orchestration only know this interface; create-chat-model.ts picks the implementation.
import type { CitablePassage } from '../../text/citations.js';
import { ProviderError } from '../provider-error.js';

export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
}

/** What the board offers as grounding; the local model reads it directly, remote ones via `system`. */
export interface GroundingPassage {
  /** Chunk id for document chunks; null for node text (a note or the chat's node). */
  chunkId: string | null;
  nodeId: string | null;
  /** A human name for the source: a node label, a document source, "note". */
  source: string;
  text: string;
  /** The chat's own node: preferred over everything else. */
  primary: boolean;
}

export interface ChatRequest {
  /** Rendered system prompt: board, node, chunks (numbered as `citable`), memory. */
  system: string;
  /** The same without the numbered chunks, for a provider that takes them as documents (Anthropic). */
  systemWithoutExcerpts: string;
  /** The chunks in the prompt: passage n is citable[n - 1], cited by a marker `[n]` in the reply. */
  citable: CitablePassage[];
  /** History that fits the budget, oldest first, ending with the new user message. */
  messages: ChatTurn[];
  passages: GroundingPassage[];
  memory: string[];
  maxTokens: number;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export type ChatEvent =
  | { type: 'delta'; content: string }
  /** The exact text of passage `passage` (1-based, as in the prompt) a marker of the reply rests on. */
  | { type: 'quote'; passage: number; quote: string }
  /** Last event: provider usage when it reported one, and why it stopped. */
  /** `sources`: chunk ids the model drew on, when it knows better than "all it was given". */
  | { type: 'done'; usage?: Usage; finish_reason: string; sources?: string[] };

export interface ChatModel {
  readonly id: string;
  stream(request: ChatRequest, signal: AbortSignal): AsyncIterable<ChatEvent>;
  /** Condenses older turns into a few short, self-contained facts (memory entries). */
  condense(turns: ChatTurn[], signal: AbortSignal): Promise<string[]>;
}

/** Chat models fail with ProviderError (kind 'chat_model'); its message is safe to show. */
export { ProviderError };

/** A chat provider's SDK error as the ProviderError the service reports (an abort stays as it is). */
export function providerError(error: unknown, name: string): unknown {
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'APIUserAbortError')) return error;
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number') return new ProviderError('chat_model', `The ${name} provider answered HTTP ${status}`, { status });
  // An error reported inside a stream that had already begun (Anthropic's `error` event): its type.
  const type = (error as { type?: unknown }).type;
  if (typeof type === 'string' && type)
    return new ProviderError('chat_model', `The ${name} provider reported ${type.slice(0, 100)} during the reply`);
  return new ProviderError(
    'chat_model',
    `The ${name} provider failed: ${error instanceof Error ? error.message.slice(0, 200) : 'unknown error'}`,
  );
}
