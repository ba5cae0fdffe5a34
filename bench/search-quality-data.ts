// SciFact for the benchmarks: the corpus and the train claims, read in place from
// /work/shared/data/scifact (or SCIFACT_DIR), never copied into the repository; two relevance
// protocols (BEIR: every claim; evidence-only: the claims with evidence), and the retrieval measures.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';

export const SCIFACT_DIR = process.env.SCIFACT_DIR ?? '/work/shared/data/scifact';

export interface Abstract {
  id: string;
  title: string;
  text: string;
}

export interface Claim {
  id: string;
  claim: string;
  relevant: Set<string>;
}

/** A CSV file's rows by its header's names (RFC 4180: quoted fields may hold commas, newlines and doubled quotes). */
function records(file: string): Record<string, string>[] {
  return parse(fs.readFileSync(path.join(SCIFACT_DIR, file), 'utf8'), { columns: true, skip_empty_lines: true, relax_column_count: true });
}

const PYTHON_ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t' };

/** A Python string literal's body: \n, \xHH, \uHHHH and the like decoded, \\ \' \" kept as the character. */
function unescapePython(body: string): string {
  return body.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/g, (_, e: string) =>
    e.length > 1 ? String.fromCodePoint(parseInt(e.slice(1), 16)) : (PYTHON_ESCAPES[e] ?? e),
  );
}

/** The abstract column is a Python list of sentences: ['…' '…']. */
function sentences(list: string): string[] {
  const out: string[] = [];
  for (const m of list.matchAll(/'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"/g)) out.push(unescapePython(m[1] ?? m[2] ?? ''));
  return out;
}

export function loadCorpus(): Abstract[] {
  return records('corpus.csv').map((r) => ({ id: r.doc_id!, title: r.title!, text: sentences(r.abstract!).join(' ') }));
}

/** An abstract as a document: its title, a blank line, its text (what is vectorized and what BM25 indexes). */
export const documentText = (a: Abstract): string => `${a.title}\n\n${a.text}`;

interface ClaimRows {
  id: string;
  claim: string;
  evidence: Set<string>;
  cited: Set<string>;
}

/** The train claims in file order, each claim's rows (one per evidence entry, or one without) merged. */
function trainClaims(): ClaimRows[] {
  const byId = new Map<string, ClaimRows>();
  for (const r of records('claims_train.csv')) {
    const claim = byId.get(r.id!) ?? { id: r.id!, claim: r.claim!, evidence: new Set<string>(), cited: new Set<string>() };
    if (r.evidence_doc_id) claim.evidence.add(r.evidence_doc_id);
    // A NumPy-printed list: [ 301838 2734421].
    for (const [id] of r.cited_doc_ids!.matchAll(/\d+/g)) claim.cited.add(id);
    byId.set(r.id!, claim);
  }
  return [...byId.values()];
}

/** Evidence-only: the claims with evidence (505 train claims); relevant = their evidence abstracts. */
export function loadClaims(): Claim[] {
  return trainClaims()
    .filter((c) => c.evidence.size > 0)
    .map((c) => ({ id: c.id, claim: c.claim, relevant: c.evidence }));
}

/**
 * BEIR protocol: every train claim (809); relevant = its evidence abstracts, or, for a claim with no
 * evidence at all, the abstracts it cites.
 */
export function loadBeirClaims(): Claim[] {
  return trainClaims().map((c) => ({ id: c.id, claim: c.claim, relevant: c.evidence.size > 0 ? c.evidence : c.cited }));
}

/** A cap on the claims from the environment: a positive integer, or no cap when unset. */
export function claimLimit(name: string): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return Infinity;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

/** nDCG@k with binary relevance. */
export function ndcg(ranked: string[], relevant: Set<string>, k: number): number {
  let dcg = 0;
  for (const [i, id] of ranked.slice(0, k).entries()) if (relevant.has(id)) dcg += 1 / Math.log2(i + 2);
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal === 0 ? 0 : dcg / ideal;
}

export function recall(ranked: string[], relevant: Set<string>, k: number): number {
  const top = new Set(ranked.slice(0, k));
  return [...relevant].filter((id) => top.has(id)).length / relevant.size;
}

/** Per query, the share of `exact`'s ids (the reference scan) that `indexed` also has; averaged over queries with any. */
export function recallAt10(indexed: string[][], exact: string[][]): number {
  let sum = 0;
  let counted = 0;
  for (const [i, truth] of exact.entries()) {
    if (truth.length === 0) continue;
    const got = new Set(indexed[i]);
    sum += truth.filter((id) => got.has(id)).length / truth.length;
    counted++;
  }
  return counted === 0 ? 1 : sum / counted;
}

export interface Quality {
  claims: number;
  ndcg10: number;
  recall100: number;
}

/** Mean nDCG@10 and recall@100 over the claims, from each claim's ranked abstract ids (by claim id). */
export function quality(claims: Claim[], rankings: Map<string, string[]>): Quality {
  let ndcgSum = 0;
  let recallSum = 0;
  for (const claim of claims) {
    const ranked = rankings.get(claim.id);
    if (!ranked) throw new Error(`no ranking for claim ${claim.id}`);
    ndcgSum += ndcg(ranked, claim.relevant, 10);
    recallSum += recall(ranked, claim.relevant, 100);
  }
  return { claims: claims.length, ndcg10: ndcgSum / claims.length, recall100: recallSum / claims.length };
}
