// Top-k lexical search without scoring every chunk of a board. A chunk's lexical score (BM25, or
// the local model's cosine) is a sum over the query terms it holds, and each term's share has a
// ceiling, so each query term has a bound on what it can add. Search then runs in two steps, each
// scoring exactly the chunks it finds through the term index (migration 0008):
// 1. seed: the chunks holding the query's rarest terms (a few hundred) are scored; the k-th best
//    score among them, θ, is a floor under the final k-th score;
// 2. candidates: only a chunk whose terms' bounds add up to θ can be in the top k. With the terms
//    ordered by bound, the lightest ones whose bounds sum to less than θ cannot take a chunk there
//    by themselves (MaxScore, Turtle & Flood 1995), so a candidate holds one of the others, the
//    essential terms; and an essential term too light to reach θ even with every non-essential term
//    needs a second essential term beside it. Where the line between non-essential and essential
//    falls is chosen by the number of chunks each choice would score, estimated from the board's
//    document frequencies. A chunk holding a seed term was scored in step 1, so step 2 looks up only
//    chunks without one, and the seed terms cost it nothing.
// With hard ceilings a chunk left out scores strictly below θ and the result is exact. The bounds
// search uses (lexical.ts) are what a term written twice weighs, not the hard ceiling: a third fewer
// chunks to score, for a recall against the full scan measured in BENCHMARKS.md (search speed).

/** A query term: its id, the most it can add to a chunk's score, and how many of the board's chunks hold it. */
export interface BoundedTerm {
  id: number;
  bound: number;
  df: number;
}

/** Which chunks can reach θ: those holding a term of `any`, or a pair's `term` together with one of its `with`. */
export interface CandidateRule {
  any: number[];
  pairs: { term: number; with: number[] }[];
}

/**
 * Chunks the seed step scores at most (unless it needs more to fill the page), and at most this share
 * of the board. 250 rather than 1,000: at 100,000 chunks of real text in notes (bench:search's shape,
 * 200 SciFact claims) the chunks scored per search fell from 694 to 393 on average (p95 1,262 to 975)
 * for a third more searches that need the candidate step; recall@10 0.9995 to 0.9990.
 */
export const SEED_CHUNKS = 250;
export const SEED_SHARE = 0.1;
/**
 * What one more index lookup costs, counted in chunks scored: on PostgreSQL at 100,000 chunks a
 * lookup took 0.07 to 0.27 ms and scoring a chunk about 1.2 to 1.6 µs (EXPLAIN ANALYZE).
 */
const LOOKUP_COST = 100;
/** Float slack: θ is lowered by this share, so rounding never drops a chunk that ties it. */
const SLACK = 1e-6;

/**
 * The seed step's terms: the rarest, up to SEED_CHUNKS chunks (at most a tenth of the board's
 * `chunks`), but always enough to hold 4k chunks if the query's terms do (fewer than k would leave
 * θ at 0: every chunk holding a query term a candidate).
 */
export function seedTerms(terms: BoundedTerm[], k: number, chunks: number): number[] {
  const budget = Math.min(SEED_CHUNKS, SEED_SHARE * chunks);
  const seed: number[] = [];
  let scored = 0;
  for (const t of [...terms].sort((a, b) => a.df - b.df || a.id - b.id)) {
    if (scored >= 4 * k && scored + t.df > budget) break;
    seed.push(t.id);
    scored += t.df;
  }
  return seed;
}

/**
 * The candidates for a top k whose k-th score is at least `theta` that the seed step has not
 * already scored (it scored every chunk holding a `scored` term), choosing the split between
 * non-essential and essential terms that scores the fewest chunks (estimated with the terms taken
 * as independent over the board's `chunks`). θ at most 0: every chunk holding a query term. An
 * empty rule: the seed step scored every candidate.
 */
export function candidateRule(terms: BoundedTerm[], theta: number, chunks: number, scored: number[] = []): CandidateRule {
  const done = new Set(scored);
  const unscored = (t: BoundedTerm) => !done.has(t.id);
  const floor = theta * (1 - SLACK);
  if (!(floor > 0)) return { any: terms.filter(unscored).map((t) => t.id), pairs: [] };
  // Not even a chunk holding every term reaches θ (a threshold above what the query can score).
  if (terms.reduce((sum, t) => sum + t.bound, 0) < floor) return { any: [], pairs: [] };
  const ascending = [...terms].sort((a, b) => a.bound - b.bound || a.id - b.id);
  let best: { rule: CandidateRule; cost: number } | undefined;
  let rest = 0;
  for (let cut = 0; cut < ascending.length; cut++) {
    if (cut > 0) rest += ascending[cut - 1]!.bound;
    if (rest >= floor) break;
    const essential = ascending.slice(cut);
    const alone = essential.filter((t) => t.bound + rest >= floor && unscored(t));
    const paired = essential.filter((t) => t.bound + rest < floor).sort((a, b) => a.df - b.df || a.id - b.id);
    const rule: CandidateRule = { any: alone.map((t) => t.id), pairs: [] };
    let cost = alone.length > 0 ? LOOKUP_COST + alone.reduce((sum, t) => sum + t.df, 0) : 0;
    // A chunk holding two paired terms is found by the rarer one's lookup (or was scored, when
    // that one was); one holding a paired term and an `alone` term is found by `any`. The rarest
    // two it holds, t and o, bound what it can reach: their bounds, the rarer paired terms' after
    // o (the most it can hold beside them) and the non-essential ones'. A partner o whose sum stays
    // under θ needs no lookup with t.
    const after = paired.map((_, i) => paired.slice(i + 1).reduce((sum, o) => sum + o.bound, 0));
    paired.forEach((t, i) => {
      const partners = paired.filter((o, j) => j > i && unscored(o) && t.bound + o.bound + after[j]! + rest >= floor);
      if (!unscored(t) || partners.length === 0) return;
      const withPartner = 1 - partners.reduce((p, o) => p * (1 - Math.min(1, o.df / Math.max(1, chunks))), 1);
      rule.pairs.push({ term: t.id, with: partners.map((o) => o.id) });
      cost += LOOKUP_COST + t.df * withPartner;
    });
    if (!best || cost < best.cost) best = { rule, cost };
  }
  return best!.rule;
}

export const isEmptyRule = (rule: CandidateRule): boolean => rule.any.length === 0 && rule.pairs.length === 0;
