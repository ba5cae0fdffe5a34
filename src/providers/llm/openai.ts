// Chat model over any OpenAI-compatible Chat Completions endpoint (OPENAI_BASE_URL, OPENAI_API_KEY,
// LLM_MODEL) through the official SDK. Streams with usage (stream_options.include_usage), and passes
// the caller's AbortSignal so a disconnected client cancels the upstream request at once.
import OpenAI from 'openai';
import type { Config } from '../../config.js';
import { type ChatEvent, type ChatModel, type ChatRequest, type ChatTurn, ProviderError, providerError, type Usage } from './chat-model.js';
import { CONDENSE_SYSTEM, condenseInput, parseFacts } from './condense-prompt.js';

export class OpenAiChatModel implements ChatModel {
  readonly id: string;
  private readonly client: OpenAI;

  constructor(config: Config) {
    this.id = config.llmModel!;
    this.client = new OpenAI({
      apiKey: config.openaiApiKey,
      baseURL: config.openaiBaseUrl,
      maxRetries: config.llmMaxRetries,
      timeout: config.llmTimeoutMs,
    });
  }

  async *stream(request: ChatRequest, signal: AbortSignal): AsyncIterable<ChatEvent> {
    let usage: Usage | undefined;
    let finish: string | undefined;
    try {
      const stream = await this.client.chat.completions.create(
        {
          model: this.id,
          messages: [{ role: 'system', content: request.system }, ...request.messages],
          max_tokens: request.maxTokens,
          stream: true,
          stream_options: { include_usage: true },
        },
        { signal },
      );
      for await (const chunk of stream) {
        if (chunk.usage) {
          usage = {
            prompt_tokens: chunk.usage.prompt_tokens,
            completion_tokens: chunk.usage.completion_tokens,
            total_tokens: chunk.usage.total_tokens,
          };
        }
        const choice = chunk.choices[0];
        if (!choice) continue;
        if (choice.finish_reason) finish = choice.finish_reason;
        const content = choice.delta?.content;
        if (content) yield { type: 'delta', content };
      }
    } catch (error) {
      throw providerError(error, 'AI');
    }
    // The SDK ends quietly when the connection closes cleanly before the last chunk (and when
    // aborted); without a finish_reason the reply was cut short and must not be stored as whole.
    if (finish === undefined && !signal.aborted)
      throw new ProviderError('chat_model', 'The AI provider ended the stream before the reply was complete');
    yield { type: 'done', usage, finish_reason: finish ?? 'stop' };
  }

  async condense(turns: ChatTurn[], signal: AbortSignal): Promise<string[]> {
    try {
      const answer = await this.client.chat.completions.create(
        {
          model: this.id,
          messages: [
            { role: 'system', content: CONDENSE_SYSTEM },
            { role: 'user', content: condenseInput(turns) },
          ],
          max_tokens: 300,
        },
        { signal },
      );
      return parseFacts(answer.choices[0]?.message?.content ?? '');
    } catch (error) {
      throw providerError(error, 'AI');
    }
  }
}
