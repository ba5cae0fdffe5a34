// Picks the embedder from EMBEDDINGS_PROVIDER (embedder.ts describes both). Apart from the
// interface, which the implementations import.
import type { Config } from '../../config.js';
import { type Embedder, localEmbedder } from './embedder.js';
import { OpenAiEmbedder } from './openai.js';

export function createEmbedder(config: Config): Embedder {
  if (config.embeddingsProvider === 'openai') {
    return new OpenAiEmbedder({
      baseUrl: config.embeddingsBaseUrl,
      apiKey: config.embeddingsApiKey,
      model: config.embeddingsModel,
      dimensions: config.embeddingsDimensions,
      batchSize: config.embeddingsBatchSize,
    });
  }
  return localEmbedder;
}
