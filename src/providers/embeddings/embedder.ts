// Embedding models. Two kinds, chosen by EMBEDDINGS_PROVIDER:
// - `local` (default): the lexical model of src/documents/lexical.ts, no network and no model file.
//   A chunk's embedding is a sparse vector over its terms and a query's is weighted by the board's
//   term statistics, so it is computed where chunks are written and searched, not here.
// - `openai`: dense vectors from any OpenAI-compatible /embeddings endpoint (openai.ts).
// create-embedder.ts picks one.

export interface DenseEmbedder {
  readonly kind: 'dense';
  /** Recorded on every chunk; search only compares vectors of the same model. */
  readonly model: string;
  readonly dimensions: number;
  /** One L2-normalised vector per text, in order. Throws ProviderError (kind 'embedder') on provider failure. */
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
}

export interface LexicalEmbedder {
  readonly kind: 'lexical';
  readonly model: string;
}

export type Embedder = DenseEmbedder | LexicalEmbedder;

/** The local lexical model's name; a new version of its weighting gets a new name (and boards are re-embedded). */
export const LOCAL_MODEL = 'local-lexical-v1';

export const localEmbedder: LexicalEmbedder = { kind: 'lexical', model: LOCAL_MODEL };
