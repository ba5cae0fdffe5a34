// The lexical side of search: the two sparse vectors every chunk carries over its terms
// (src/text/terms.ts), as pgvector `sparsevec`, one dimension per hashed term, so the whole
// vocabulary is kept:
// - `keywords`: the chunk's own words weighted as Okapi BM25 weighs a term's frequency (k1 0.9,
//   b 0.4, a fixed reference length). Its inner product with a query vector of inverse document
//   frequencies is the chunk's BM25 score: keyword search.
// - the local model's embedding (`sparse_embedding`): the same weights plus the chunk's source title
//   (a note's label, a file's name), and a length dimension that gives every chunk vector the same
//   norm. The cosine between it and the query's IDF vector therefore ranks like BM25 with the title
//   counted, while staying a cosine in -1..1 that a threshold can apply to. Measured on SciFact
//   (BENCHMARKS.md), this beats BM25 where the hashed dense bag of words it replaces fell 30% short.
// IDF is not stored in chunks: it comes from the board's term statistics at query time
// (term-stats.ts), so adding a note never rewrites the others. The query vectors (each distinct
// query term the board holds, weighted by its IDF, ln(1 + (N - df + 0.5) / (df + 0.5)); for the
// local model scaled to unit length) are made by the statement that reads those statistics
// (seed-step.ts) and read back with parseSparse.
import { terms } from '../text/terms.js';

/** pgvector sparsevec dimensions: terms are hashed into 2..SPARSE_DIMENSIONS; 1 is the length dimension. */
export const SPARSE_DIMENSIONS = 1 << 29;
const LENGTH_DIMENSION = 1;
/** An HNSW index on sparsevec takes up to 1,000 non-zero entries; a longer chunk keeps its heaviest terms. */
const MAX_TERMS = 999;

export const BM25_K1 = 0.9;
export const BM25_B = 0.4;
/** BM25's length normalisation against a fixed reference (about a 1,000-character chunk), so weights never depend on the rest of the board. */
const REFERENCE_LENGTH = 80;
/** Added to a term's weight when the chunk's source title holds it. */
const TITLE_WEIGHT = 0.3;
/** The norm every local embedding is padded to before it is scaled to unit length (most chunks' term weights stay well under it). */
const EMBEDDING_NORM = 12;

/** A term's dimension: FNV-1a of the stem into 2..SPARSE_DIMENSIONS (collisions are rare at this size). */
export function termId(term: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) {
    h ^= term.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return 2 + ((h >>> 0) % (SPARSE_DIMENSIONS - 1));
}

/** A sparse vector: term id to weight. */
export type Sparse = Map<number, number>;

/** pgvector's sparsevec text form, `{i:w,…}/dims`, indices ascending. */
export function sparseLiteral(v: Sparse): string {
  const entries = [...v].filter(([, w]) => w !== 0).sort((a, b) => a[0] - b[0]);
  return `{${entries.map(([i, w]) => `${i}:${Number(w.toPrecision(7))}`).join(',')}}/${SPARSE_DIMENSIONS}`;
}

/** A sparsevec's text form (`{i:w,…}/dims`) as a sparse vector. */
export function parseSparse(text: string): Sparse {
  const body = text.slice(text.indexOf('{') + 1, text.indexOf('}'));
  return new Map(
    body === ''
      ? []
      : body.split(',').map((entry) => {
          const [i, w] = entry.split(':');
          return [Number(i), Number(w)];
        }),
  );
}

/** BM25's term-frequency factor: tf (k1 + 1) / (tf + k1 (1 - b + b len / ref)). At most k1 + 1. */
function saturate(tf: number, length: number): number {
  return (tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * length) / REFERENCE_LENGTH));
}

function heaviest(v: Sparse): Sparse {
  if (v.size <= MAX_TERMS) return v;
  return new Map([...v].sort((a, b) => b[1] - a[1]).slice(0, MAX_TERMS));
}

export interface ChunkTerms {
  /** BM25 term weights of the chunk's own words. */
  keywords: Sparse;
  /** The term ids in `keywords`, for the board's statistics. */
  termIds: number[];
}

export function chunkTerms(content: string): ChunkTerms {
  const list = terms(content);
  const counts = new Map<number, number>();
  for (const t of list) {
    const id = termId(t);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  const keywords: Sparse = new Map();
  for (const [id, tf] of counts) keywords.set(id, saturate(tf, list.length));
  const kept = heaviest(keywords);
  return { keywords: kept, termIds: [...kept.keys()].sort((a, b) => a - b) };
}

/**
 * The local model's embedding of a chunk: its keyword weights, its title's terms, the length
 * dimension, scaled to unit length (so its inner product with a unit query is their cosine).
 */
export function localEmbedding(keywords: Sparse, title: string): Sparse {
  const v: Sparse = new Map(keywords);
  for (const t of new Set(terms(title))) {
    const id = termId(t);
    v.set(id, (v.get(id) ?? 0) + TITLE_WEIGHT);
  }
  const kept = heaviest(v);
  let norm = 0;
  for (const w of kept.values()) norm += w * w;
  if (norm < EMBEDDING_NORM ** 2) kept.set(LENGTH_DIMENSION, Math.sqrt(EMBEDDING_NORM ** 2 - norm));
  return unit(kept);
}

function unit(v: Sparse): Sparse {
  let norm = 0;
  for (const w of v.values()) norm += w * w;
  norm = Math.sqrt(norm);
  return norm > 0 ? new Map([...v].map(([id, w]) => [id, w / norm])) : v;
}

/** Term statistics of the searched board: how many chunks there are and how many hold each term. */
export interface TermStats {
  chunks: number;
  df: Map<number, number>;
}

/** The query's distinct term ids (what term statistics are needed for). */
export function queryTermIds(query: string): number[] {
  return [...new Set(terms(query).map(termId))];
}

/** The most a chunk's keyword weight for a term can be: BM25's saturation. */
const MAX_KEYWORD_WEIGHT = BM25_K1 + 1;
/**
 * What search through the term index (term-pruning.ts) takes a term's weight in a chunk to be at
 * most: the weight of a term written twice in a chunk of the reference length (plus the title's
 * share for the local embedding). A chunk that holds a query term more often, or a very short one,
 * weighs more and may be left out where only that excess would have lifted it into the page: the
 * index trades that for scoring about a third fewer chunks. Its recall against scoring every chunk is
 * measured in BENCHMARKS.md (search speed).
 */
const PRUNING_KEYWORD_WEIGHT = saturate(2, REFERENCE_LENGTH);
const PRUNING_EMBEDDING_WEIGHT = PRUNING_KEYWORD_WEIGHT + TITLE_WEIGHT;

/** The highest BM25 score the query can reach on this board (every term at its saturation): keyword scores are shares of it. */
export function maxKeywordScore(q: Sparse): number {
  let sum = 0;
  for (const w of q.values()) sum += w * MAX_KEYWORD_WEIGHT;
  return sum;
}

/** How much each query term is taken to add to a chunk's BM25 score at most, for the term index. */
export function keywordTermBounds(q: Sparse): Map<number, number> {
  return new Map([...q].map(([id, w]) => [id, w * PRUNING_KEYWORD_WEIGHT]));
}

/**
 * How much each term of a unit query is taken to add at most to its cosine with a local embedding,
 * for the term index: an embedding's weights are divided by its norm, at least EMBEDDING_NORM.
 */
export function embeddingTermBounds(unitQ: Sparse): Map<number, number> {
  return new Map([...unitQ].map(([id, w]) => [id, (w * PRUNING_EMBEDDING_WEIGHT) / EMBEDDING_NORM]));
}
