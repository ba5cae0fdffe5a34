// Chat model over the Anthropic Messages API (ANTHROPIC_API_KEY, LLM_MODEL, optional
// ANTHROPIC_BASE_URL) through the official SDK, streamed; stop reasons are mapped to the
// OpenAI-style finish_reason the API reports (end_turn -> stop, max_tokens -> length).
import Anthropic from '@anthropic-ai/sdk';
import type { DocumentBlockParam, MessageCreateParamsStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import type { Config } from '../../config.js';
import { type ChatEvent, type ChatModel, type ChatRequest, type ChatTurn, ProviderError, providerError } from './chat-model.js';
import { CONDENSE_SYSTEM, condenseInput, parseFacts } from './condense-prompt.js';

const FINISH: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

/** The input side of a usage object: the API counts cached prompt tokens apart from input_tokens. */
interface InputUsage {
  input_tokens: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}
const promptTokens = (u: InputUsage): number =>
  (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);

/**
 * The request's system prompt and turns, with the numbered chunks as plain-text documents with
 * citations enabled (document i is passage i + 1) ahead of the last user turn, instead of inside
 * the system prompt; the API then answers in text blocks each carrying its citations.
 */
function withDocuments(request: ChatRequest): Pick<MessageCreateParamsStreaming, 'system' | 'messages'> {
  if (request.citable.length === 0) return { system: request.system, messages: request.messages };
  const documents: DocumentBlockParam[] = request.citable.map((c) => ({
    type: 'document',
    source: { type: 'text', media_type: 'text/plain', data: c.content },
    title: c.source.slice(0, 200),
    citations: { enabled: true },
  }));
  const messages: MessageParam[] = request.messages.map((m) => ({ role: m.role, content: m.content }));
  const last = messages.at(-1)!;
  last.content = [...documents, { type: 'text', text: last.content as string }];
  return { system: request.systemWithoutExcerpts, messages };
}

export class AnthropicChatModel implements ChatModel {
  readonly id: string;
  private readonly client: Anthropic;

  constructor(config: Config) {
    this.id = config.llmModel!;
    this.client = new Anthropic({
      apiKey: config.anthropicApiKey,
      baseURL: config.anthropicBaseUrl,
      maxRetries: config.llmMaxRetries,
      timeout: config.llmTimeoutMs,
    });
  }

  async *stream(request: ChatRequest, signal: AbortSignal): AsyncIterable<ChatEvent> {
    let input = 0;
    let output = 0;
    let stop = 'end_turn';
    let complete = false;
    // Passages cited by the text block being streamed: its markers follow the block's text.
    let cited: number[] = [];
    let blockText = '';
    try {
      const stream = await this.client.messages.create(
        { model: this.id, ...withDocuments(request), max_tokens: request.maxTokens, stream: true },
        { signal },
      );
      for await (const event of stream) {
        if (event.type === 'message_start') {
          input = promptTokens(event.message.usage);
          output = event.message.usage.output_tokens;
        } else if (event.type === 'content_block_start') {
          cited = [];
          blockText = '';
        } else if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
          blockText += event.delta.text;
          if (event.delta.text) yield { type: 'delta', content: event.delta.text };
        } else if (event.type === 'content_block_delta' && event.delta.type === 'citations_delta') {
          const citation = event.delta.citation;
          if (citation.type === 'char_location' && citation.document_index < request.citable.length) {
            const passage = citation.document_index + 1;
            if (!cited.includes(passage)) cited.push(passage);
            yield { type: 'quote', passage, quote: citation.cited_text };
          }
        } else if (event.type === 'content_block_stop') {
          // " [1]" after the claim (a marker right after a word would read as an index: citations.ts).
          const space = blockText === '' || /\s$/.test(blockText) ? '' : ' ';
          if (cited.length) yield { type: 'delta', content: space + cited.map((n) => `[${n}]`).join('') };
          cited = [];
        } else if (event.type === 'message_delta') {
          if (event.delta.stop_reason) stop = event.delta.stop_reason;
          output = event.usage.output_tokens;
          // Counts in message_delta are cumulative and, when present, final.
          if (typeof event.usage.input_tokens === 'number') input = promptTokens(event.usage);
        } else if (event.type === 'message_stop') {
          complete = true;
        }
      }
    } catch (error) {
      throw providerError(error, 'AI');
    }
    // The SDK ends quietly both when aborted and when the connection closes cleanly before
    // message_stop; a reply cut short that way must never be stored as if it were whole.
    if (!complete && !signal.aborted)
      throw new ProviderError('chat_model', 'The AI provider ended the stream before the message was complete');
    yield {
      type: 'done',
      usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
      finish_reason: FINISH[stop] ?? stop,
    };
  }

  async condense(turns: ChatTurn[], signal: AbortSignal): Promise<string[]> {
    try {
      const answer = await this.client.messages.create(
        { model: this.id, system: CONDENSE_SYSTEM, messages: [{ role: 'user', content: condenseInput(turns) }], max_tokens: 300 },
        { signal },
      );
      return parseFacts(answer.content.map((block) => (block.type === 'text' ? block.text : '')).join(''));
    } catch (error) {
      throw providerError(error, 'AI');
    }
  }
}
