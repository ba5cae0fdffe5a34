// Documents: what vectorizing and searching take, a stored chunk and a search hit.
import { type Static, Type } from '@sinclair/typebox';
import { Timestamp, Uuid } from './common.js';
import { IDS_MAX_ITEMS, PAGE_MAX_ITEMS, SEARCH_QUERY_MAX_CHARS, VECTORIZE_TEXT_MAX_CHARS } from './limits.js';

export const SEARCH_MODES = ['vector', 'keyword', 'hybrid'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

const Offset = (description: string) => Type.Optional(Type.Integer({ minimum: 0, description }));
const Seconds = (description: string) => Type.Optional(Type.Number({ minimum: 0, description }));

export const ChunkMetadata = Type.Object({
  source: Type.String(),
  page: Type.Integer({ description: "1-based: a pdf's page; 1 for every other source" }),
  chunkIndex: Type.Integer(),
  totalChunks: Type.Integer(),
  sourceType: Type.String(),
  char_start: Offset(
    "Where the chunk's passage starts in the text it was read from (a UTF-16 index, as JavaScript strings count): the node's " +
      "data.text for a note or document, the page's extracted text for a url node, the text of page `page` for a pdf, the " +
      "transcript for a video, the given text otherwise. `text.slice(char_start, char_end)` is the passage; the chunk's content " +
      'is that passage with each run of whitespace made one space and each paragraph break (blank line) made "\\n\\n". ' +
      'Absent on chunks written before offsets were recorded',
  ),
  char_end: Offset('Where the passage ends (exclusive), in the same text as char_start'),
  start_seconds: Seconds("A video transcript's chunk: when its first cue starts, in seconds from the start of the video"),
  end_seconds: Seconds("A video transcript's chunk: when its last cue ends, in seconds"),
  cues: Type.Optional(
    Type.Array(Type.Array(Type.Number({ minimum: 0 }), { minItems: 2, maxItems: 2 }), {
      description:
        "A video transcript's chunk: where each of its cues starts, as [character offset in the transcript (as char_start counts), " +
        'seconds from the start of the video], in order; a citation of a passage inside the chunk starts at its own cue',
    }),
  ),
});
export type ChunkMetadata = Static<typeof ChunkMetadata>;

export const Chunk = Type.Object({
  id: Uuid,
  content: Type.String(),
  node_id: Type.Union([Uuid, Type.Null()]),
  metadata: ChunkMetadata,
  model: Type.String({ description: 'The embedding model that embedded the chunk' }),
  created_at: Timestamp,
});
export type Chunk = Static<typeof Chunk>;

/** A node's stored search index: its live chunk set (one per vectorized node), as `GET …/documents/nodes` lists it. */
export const NodeIndex = Type.Object({
  node_id: Uuid,
  chunks: Type.Integer({ description: 'How many chunks the node has' }),
  indexed_at: Timestamp,
  text_sha256: Type.Union([Type.String(), Type.Null()], {
    description:
      'The SHA-256 (hex) of the text that was vectorized, as the vectorize request gave it (UTF-8); null when the service ' +
      "extracted the text itself (a pdf node) or vectorized it before this field existed. A client compares it with a hash of the node's current text to tell whether the index is behind",
  }),
});
export type NodeIndex = Static<typeof NodeIndex>;

export const Hit = Type.Object({
  id: Uuid,
  content: Type.String(),
  node_id: Type.Union([Uuid, Type.Null()]),
  metadata: ChunkMetadata,
  score: Type.Number({
    description:
      'The ranking score, descending, in the request mode: `vector`, the cosine similarity between the query and the chunk (-1..1); ' +
      "`keyword`, the chunk's BM25 score as a share of the highest the query could reach on this board (0..1); " +
      '`hybrid`, the reciprocal rank fusion (k = 60) of both rankings over its maximum (0..1, 1 when first in both)',
  }),
});
export type Hit = Static<typeof Hit>;

export const VectorizeBody = Type.Object(
  {
    text: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: VECTORIZE_TEXT_MAX_CHARS,
        description:
          'Text to chunk and embed. Without it, node_id names the node to read: a note its text, a document its text (or, made ' +
          "from an uploaded file, that file's text), a pdf its file's pages, a url node the page it links to, a video its " +
          'transcript (transcript_asset_id), an image its label, title, alt, description and text (docs/api.md "Reading a node")',
      }),
    ),
    transcript_asset_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 300,
        description: 'For a video node read without text: the id of a .vtt or .srt asset of this board, its transcript',
      }),
    ),
    node_id: Type.Optional(
      Type.Union([Uuid, Type.Null()], { description: 'A node of this board: its earlier chunks are replaced when the job completes' }),
    ),
    source: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'Default: the node\'s label or url, else "text"' })),
    source_type: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Default: the node type, else "text"' })),
  },
  { additionalProperties: false },
);
export type VectorizeBody = Static<typeof VectorizeBody>;

/** Documents one batch vectorize request may carry. */
export const VECTORIZE_BATCH_MAX = 100;

export const VectorizeBatchBody = Type.Object(
  {
    documents: Type.Array(VectorizeBody, {
      minItems: 1,
      maxItems: VECTORIZE_BATCH_MAX,
      description:
        'Each as the body of `POST …/documents`; one job per document, answered in this order. All or nothing: one invalid document ' +
        '(named `documents[i]` in the error) refuses the batch and queues nothing; the jobs count against the per-user job bound together',
    }),
  },
  { additionalProperties: false },
);
export type VectorizeBatchBody = Static<typeof VectorizeBatchBody>;

export const SearchBody = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: SEARCH_QUERY_MAX_CHARS }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_MAX_ITEMS, default: 10 })),
    // An enum rather than a union of literals: one clear validation message.
    mode: Type.Optional(
      Type.Unsafe<SearchMode>(
        Type.String({
          enum: [...SEARCH_MODES],
          default: 'vector',
          description:
            "`vector`: by meaning, the embedding model's cosine similarity; `keyword`: BM25-ranked full text, only chunks holding a query word; " +
            '`hybrid`: reciprocal rank fusion of both (the first 200 chunks of each)',
        }),
      ),
    ),
    threshold: Type.Optional(
      Type.Number({ minimum: -1, maximum: 1, default: 0, description: "Minimum score (in the mode's own scale, see score)" }),
    ),
    node_ids: Type.Optional(Type.Array(Uuid, { maxItems: IDS_MAX_ITEMS, description: 'Only chunks of these nodes' })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Continues the ranking from the previous page' })),
  },
  { additionalProperties: false },
);
