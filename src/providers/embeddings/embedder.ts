// The embedding provider interface. Implementations: local.ts (default, no network, deterministic)
// and openai.ts (any OpenAI-compatible /embeddings endpoint), chosen by EMBEDDINGS_PROVIDER.
import type { Config } from '../../config.js';
import { LocalEmbedder } from './local.js';
import { OpenAiEmbedder } from './openai.js';

export interface Embedder {
  /** Recorded on every chunk; search only compares vectors of the same model. */
  readonly model: string;
  readonly dimensions: number;
  /** One L2-normalised vector per text, in order. Throws ApiError('upstream_error') on provider failure. */
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
}

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
  return new LocalEmbedder(config.localEmbeddingDimensions);
}
