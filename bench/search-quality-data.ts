// Reads the SciFact corpus and train claims from /work/shared/data/scifact (or SCIFACT_DIR) for the
// search-quality benchmark. The data is read in place, never copied into the repository.
import fs from 'node:fs';
import path from 'node:path';

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

/** RFC 4180 CSV: quoted fields may hold commas, newlines and doubled quotes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(field), (field = '');
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field), rows.push(row), (row = []), (field = '');
    } else field += c;
  }
  if (field !== '' || row.length > 0) row.push(field), rows.push(row);
  return rows;
}

function records(file: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(fs.readFileSync(path.join(SCIFACT_DIR, file), 'utf8'));
  return rows.filter((r) => r.length === header!.length).map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!])));
}

/** The abstract column is a Python list of sentences: ['…' '…']. */
function sentences(list: string): string[] {
  const out: string[] = [];
  for (const m of list.matchAll(/'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"/g)) out.push((m[1] ?? m[2] ?? '').replace(/\\(.)/g, '$1'));
  return out;
}

export function loadCorpus(): Abstract[] {
  return records('corpus.csv').map((r) => ({ id: r.doc_id!, title: r.title!, text: sentences(r.abstract!).join(' ') }));
}

export function loadClaims(): Claim[] {
  const byId = new Map<string, Claim>();
  for (const r of records('claims_train.csv')) {
    if (!r.evidence_doc_id) continue;
    const claim = byId.get(r.id!) ?? { id: r.id!, claim: r.claim!, relevant: new Set<string>() };
    claim.relevant.add(r.evidence_doc_id);
    byId.set(r.id!, claim);
  }
  return [...byId.values()];
}

/** nDCG@k with binary relevance. */
export function ndcg(ranked: string[], relevant: Set<string>, k: number): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => (dcg += relevant.has(id) ? 1 / Math.log2(i + 2) : 0));
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
