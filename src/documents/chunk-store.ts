// Reading and writing stored chunks: the pgvector text form, batched inserts, the views the API shows.
import { sql } from 'kysely';
import type { Executor } from '../db/schema.js';
import { newId, now } from '../lib/ids.js';

export interface ChunkMetadata {
  source: string;
  page: number;
  chunkIndex: number;
  totalChunks: number;
  sourceType: string;
}

/** pgvector's text form; 7 significant digits are more than its float4 storage keeps. */
export const vectorLiteral = (v: number[]): string => `[${v.map((x) => Number(x.toPrecision(7))).join(',')}]`;

export const INSERT_BATCH = 100;

export async function insertChunks(
  db: Executor,
  rows: { boardId: string; nodeId: string | null; content: string; metadata: ChunkMetadata; model: string; embedding: number[]; pendingJobId: string | null }[],
): Promise<void> {
  if (rows.length === 0) return;
  const at = now();
  await db
    .insertInto('document_chunks')
    .values(rows.map((r) => ({
      id: newId(),
      board_id: r.boardId,
      node_id: r.nodeId,
      content: r.content,
      metadata: JSON.stringify(r.metadata),
      model: r.model,
      embedding: sql<string>`${vectorLiteral(r.embedding)}::vector`,
      pending_job_id: r.pendingJobId,
      created_at: at,
    })))
    .execute();
}
