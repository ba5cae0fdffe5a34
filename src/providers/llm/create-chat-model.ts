// Picks the chat model implementation from configuration (LLM_PROVIDER, default local).
import type { Config } from '../../config.js';
import { AnthropicChatModel } from './anthropic.js';
import type { ChatModel } from './chat-model.js';
import { LocalChatModel } from './local.js';
import { OpenAiChatModel } from './openai.js';

export function createChatModel(config: Config): ChatModel {
  switch (config.llmProvider) {
    case 'openai':
      return new OpenAiChatModel(config);
    case 'anthropic':
      return new AnthropicChatModel(config);
    default:
      return new LocalChatModel();
  }
}
