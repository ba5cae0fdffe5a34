// Embeddings from any OpenAI-compatible `/embeddings` endpoint, sent in batches. Failures (network,
// non-2xx, malformed answers, wrong dimensions) become ProviderError (kind 'embedder').
import { ProviderError } from '../provider-error.js';
import type { DenseEmbedder } from './embedder.js';

export interface OpenAiEmbedderOptions {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  dimensions: number;
  batchSize: number;
}

const TIMEOUT_MS = 60_000;

export class OpenAiEmbedder implements DenseEmbedder {
  readonly kind = 'dense';
  readonly model: string;
  readonly dimensions: number;

  constructor(private readonly options: OpenAiEmbedderOptions) {
    this.model = options.model;
    this.dimensions = options.dimensions;
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += this.options.batchSize) {
      out.push(...(await this.batch(texts.slice(i, i + this.options.batchSize), signal)));
    }
    return out;
  }

  private async batch(input: string[], signal?: AbortSignal): Promise<number[][]> {
    const url = `${this.options.baseUrl.replace(/\/+$/, '')}/embeddings`;
    const timeout = AbortSignal.timeout(TIMEOUT_MS);
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
        },
        body: JSON.stringify({ model: this.options.model, input, encoding_format: 'float' }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      signal?.throwIfAborted();
      throw new ProviderError('embedder', `The embedding provider could not be reached (${(error as Error).name})`, { cause: error });
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw new ProviderError('embedder', `The embedding provider answered ${response.status}`, { status: response.status });
    }
    let body: { data?: { index?: number; embedding?: unknown }[] };
    try {
      body = (await response.json()) as typeof body;
    } catch {
      throw new ProviderError('embedder', 'The embedding provider sent a malformed answer', { retryable: false });
    }
    const data = Array.isArray(body?.data) ? body.data : [];
    if (data.length !== input.length)
      throw new ProviderError('embedder', 'The embedding provider sent the wrong number of vectors', { retryable: false });
    const ordered = [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    return ordered.map((item) => {
      const v = item.embedding;
      if (!Array.isArray(v) || v.length !== this.dimensions || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw new ProviderError('embedder', `The embedding provider sent a vector that is not ${this.dimensions} finite numbers`, {
          retryable: false,
        });
      }
      return normalise(v as number[]);
    });
  }
}

function normalise(v: number[]): number[] {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return norm > 0 ? v.map((x) => x / norm) : v;
}
