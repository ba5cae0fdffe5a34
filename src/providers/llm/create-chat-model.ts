// Picks the chat model implementation from configuration (LLM_PROVIDER, default local). A hosted
// provider's SDK is loaded only when it is the one configured.
import type { Config } from '../../config.js';
import type { ChatModel } from './chat-model.js';
import { LocalChatModel } from './local.js';

export async function createChatModel(config: Config): Promise<ChatModel> {
  switch (config.llmProvider) {
    case 'openai':
      return new (await import('./openai.js')).OpenAiChatModel(config);
    case 'anthropic':
      return new (await import('./anthropic.js')).AnthropicChatModel(config);
    default:
      return new LocalChatModel();
  }
}
