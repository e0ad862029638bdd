/**
 * The nearest k items of some projects that pass a filter, at the least cost Chroma 1.0.5 allows. Its
 * costs, measured (docs/benchmarks.md, "Where the time goes"):
 *
 * - an unfiltered query costs little, but every neighbour returned with its payload costs (documents and
 *   metadata go over HTTP and are parsed): at 10k memories k = 3 took 7 ms, k = 50 took 36 ms, k = 120
 *   with ids and distances only 7 ms;
 * - a `where` on the project costs in proportion to the rows it matches (k = 20: 28 ms when the project
 *   is 5% of 10k memories, 118 ms when it is all of them);
 * - a `where` on status or confidence costs in proportion to all rows, whatever matches (115 ms at 10k).
 *
 * So status and confidence are never sent to Chroma unless nothing else finds k, and the project is
 * filtered here or there depending on its share of the store:
 *
 * - a large share (down to a few percent): the nearest `k / (share · pass rate)` overall are fetched
 *   unfiltered, as ids, and filtered here;
 * - a small share: the project's own nearest `k / pass rate` are fetched, among the ids the lexical index
 *   lists for the scope (at most {@link MAX_LISTED}), else with the project `where` (cheap, few rows
 *   match), and the rest is filtered here;
 * - when either comes back with fewer than k that pass and was not everything there is, the exact query
 *   (every clause in the `where`) runs. Each step is exact: anything that passes and lies outside the
 *   fetched neighbours is farther than all of them.
 *
 * The unfiltered fetch asks Chroma for ids and distances only and takes what the filter and the ranking
 * need from the lexical index, reading back from Chroma only what the index has no facts for
 * ({@link readBackInScope}); a store without those facts may instead ask for the payload at once for a
 * scope that is most of the store (a read-back would read nearly all of them in a second round trip).
 *
 * The share and the pass rate are learned per scope from what comes back (moving averages); a scope sent
 * to the project `where` is probed unfiltered again every {@link REPROBE} queries, so a changing mix is
 * followed.
 */

/**
 * Unfiltered over-fetch above this many neighbours costs more than the project `where`. Ids and distances
 * only (the payload is read back for the scope's neighbours alone): at 10k memories 1000 of them took
 * 16 ms p50 under load, the project `where` with k = 20 for a project of 5% of the store 36 ms.
 */
const MAX_UNFILTERED = 1000;
/**
 * A scope at least this share of the store is fetched with the payload in one query: nearly every
 * neighbour is read anyway.
 */
const WHOLE_SHARE = 0.6;
/**
 * A scope under this share of the store is ranked among its own ids when the lexical index can list them
 * ({@link NearestPlan.listed}). At 10k memories, a project of 5% (~500 ids): the listed query took 9 ms
 * p50, the unfiltered 860 neighbours 10 ms plus their lookup in the index, the project `where` 16 ms.
 */
const LISTED_SHARE = 0.2;
/**
 * The most ids a listed query carries: Chroma ranked 1,000 given ids in 15 ms p50, 2,000 in 18 ms (p95
 * 48), 4,000 in 62 ms (10k memories, with the payload).
 */
export const MAX_LISTED = 1000;
/** Never fetch more than this many of the project's own neighbours before the exact query. */
const MAX_SCOPED = 200;
/** An unknown scope's first unfiltered fetch, in multiples of k. */
const FIRST_PROBE = 20;
/** Fetch this much more than the expected need, so a query seldom falls back. */
const SAFETY = 1.5;
/** A scope sent to the project `where` is probed unfiltered again every this many queries. */
const REPROBE = 50;
const MAX_SCOPES = 256;

interface ScopeStats {
  /** Share of unfiltered neighbours inside the scope. */
  share: number;
  /** Share of the scope's neighbours that pass the rest of the filter. */
  passRate: number;
  sinceProbe: number;
  /** Questions to go before the scope is listed again, after it had too many ids to list. */
  skipListing?: number;
}

/** What an unfiltered fetch of the n nearest found: ids first, their payload read back on demand. */
export interface Unfiltered<T> {
  /** How many neighbours there were, in scope or not (fewer than n: the whole store). */
  fetched: number;
  /** How many of them may be in scope (the others are never read back). */
  candidates: number;
  /** Candidates `from` to `to` (exclusive), nearest first, read back. */
  read: (from: number, to: number) => Promise<T[]>;
}

export interface NearestPlan<T> {
  /** Names the scope (the projects) for what is learned. */
  scope: string;
  k: number;
  /** The n nearest overall, as ids first (their payload read back on demand). */
  unfiltered: (n: number) => Promise<Unfiltered<T>>;
  /**
   * The n nearest overall with their payload, in one query: for a scope that is most of the store, when
   * {@link unfiltered} would read most of them back (absent: {@link unfiltered} reads little or nothing).
   */
  unfilteredWhole?: (n: number) => Promise<T[]>;
  /** The n nearest inside the scope (Chroma's `where` on the project only). */
  scoped: (n: number) => Promise<T[]>;
  /**
   * The n nearest among the scope's own ids as the lexical index lists them (Chroma's query restricted to
   * those ids), for a scope that is a small share of the store, and whether they were all of them.
   * `unlistable`: the scope has more ids than a query should carry; undefined: not now (no index, or one
   * not known to be complete). Absent: the scope is never listed.
   */
  listed?: (n: number) => Promise<{ items: T[]; all: boolean } | 'unlistable' | undefined>;
  /** The k nearest that pass everything (every clause in Chroma's `where`). */
  exact: (k: number) => Promise<T[]>;
  inScope: (x: T) => boolean;
  /** The rest of the filter (status, confidence), checked here. */
  passes: (x: T) => boolean;
}

const rate = (hits: number, of: number): number => (of > 0 ? hits / of : 1);

export interface IdDistance {
  id: string;
  distance: number;
}

/** What the lexical index knows of an id: its project and, when kept, what recall ranks it by. */
export interface Known<F> {
  project: string;
  facts?: F;
}

/**
 * An unfiltered fetch without the payload: Chroma returns ids and distances only (120 of them cost about
 * what 3 with documents and metadata do), the project and the facts of each id come from the lexical
 * index (store/lexical/facts.ts: every memory and episode is there with its project, status, confidence, …), and
 * only a neighbour of the scope's projects that the index has no facts for (an older index), or whose
 * project it does not know, is read back, with plain `get`s by id (a `get` with a `where` would cost in
 * proportion to the rows the `where` matches), as many as the planner needs. What comes back is checked
 * against the scope once more by the planner.
 */
export async function readBackInScope<R extends { id: string }, F, T>(
  hits: IdDistance[],
  projects: readonly string[],
  indexed: (ids: string[]) => Promise<Map<string, Known<F>>>,
  read: (ids: string[]) => Promise<R[]>,
  fromRow: (row: R, distance: number) => T,
  fromFacts?: (id: string, project: string, facts: F, distance: number) => T,
): Promise<Unfiltered<T>> {
  const known = await indexed(hits.map((h) => h.id));
  const wanted = hits.filter((h) => {
    const project = known.get(h.id)?.project;
    return project === undefined || projects.includes(project);
  });
  return {
    fetched: hits.length,
    candidates: wanted.length,
    read: async (from, to) => {
      const slice = wanted.slice(from, to);
      const byFacts = slice.map((h) => {
        const k = known.get(h.id);
        return fromFacts && k?.facts !== undefined
          ? fromFacts(h.id, k.project, k.facts, h.distance)
          : undefined;
      });
      const unread = slice.filter((_, i) => byFacts[i] === undefined).map((h) => h.id);
      const rows = new Map((unread.length ? await read(unread) : []).map((r) => [r.id, r]));
      const out: T[] = [];
      slice.forEach((h, i) => {
        const row = rows.get(h.id);
        const x = byFacts[i] ?? (row ? fromRow(row, h.distance) : undefined);
        if (x !== undefined) out.push(x); // no row: deleted since the query
      });
      return out;
    },
  };
}

/** Neighbours fetched with their payload, as an {@link Unfiltered} of those in scope. */
function inScopeOf<T>(rows: T[], inScope: (x: T) => boolean): Unfiltered<T> {
  const mine = rows.filter(inScope);
  return { fetched: rows.length, candidates: mine.length, read: async (a, b) => mine.slice(a, b) };
}

export class NearestPlanner {
  private readonly scopes = new Map<string, ScopeStats>();

  async nearest<T>(p: NearestPlan<T>): Promise<T[]> {
    const known = this.scopes.get(p.scope);
    const stats = known ?? { share: 1, passRate: 1, sinceProbe: REPROBE };
    const need = (r: number, safety = SAFETY) => Math.ceil((p.k / Math.max(r, 1e-3)) * (r < 1 ? safety : 1));
    // A small scope the index can list: Chroma ranks exactly its ids (no neighbours of other projects to
    // look up, no `where` to match). Probed unfiltered again every REPROBE queries, like the scoped step;
    // a scope with too many ids to list is not asked again for REPROBE queries.
    const listable = !stats.skipListing || !--stats.skipListing;
    if (known && p.listed && listable && stats.share < LISTED_SHARE && stats.sinceProbe + 1 < REPROBE) {
      const n = Math.max(p.k, Math.min(need(stats.passRate), MAX_SCOPED));
      const listed = await p.listed(n);
      if (typeof listed === 'object') {
        stats.sinceProbe++;
        // What the index knew not to pass was not sent, so this says nothing of the pass rate: not learned.
        const pass = listed.items.filter((x) => p.inScope(x) && p.passes(x));
        if (pass.length >= p.k || listed.all) return pass.slice(0, p.k);
        return p.exact(p.k);
      }
      if (listed === 'unlistable') stats.skipListing = REPROBE;
    }
    // An unknown scope is probed with many times k (ids are cheap), which learns its share from enough
    // neighbours and also answers a store mostly of this project. A known one goes unfiltered when the
    // expected need fits.
    const wantUnfiltered = known ? need(stats.share * stats.passRate) : p.k * FIRST_PROBE;
    const fits = known ? need(stats.share * stats.passRate, 1) <= MAX_UNFILTERED : true;
    if (fits || ++stats.sinceProbe >= REPROBE) {
      const n = Math.max(p.k, Math.min(wantUnfiltered, MAX_UNFILTERED));
      // Most of the neighbours are the scope's: reading them back would cost a second round trip.
      const wide =
        known && stats.share >= WHOLE_SHARE && p.unfilteredWhole
          ? inScopeOf(await p.unfilteredWhole(n), p.inScope)
          : await p.unfiltered(n);
      // The candidates are read back in order, a batch of the expected need at a time, until k pass.
      const batch = need(stats.passRate);
      const pass: T[] = [];
      let mine = 0;
      for (let from = 0; from < wide.candidates && pass.length < p.k; from += batch) {
        const got = (await wide.read(from, from + batch)).filter(p.inScope);
        mine += got.length;
        pass.push(...got.filter(p.passes));
      }
      this.learn(p.scope, stats, rate(wide.candidates, wide.fetched), mine, rate(pass.length, mine));
      if (pass.length >= p.k || wide.fetched < n) return pass.slice(0, p.k);
    }
    const n = Math.max(p.k, Math.min(need((this.scopes.get(p.scope) ?? stats).passRate), MAX_SCOPED));
    const mine = await p.scoped(n);
    const pass = mine.filter(p.passes);
    this.learn(
      p.scope,
      this.scopes.get(p.scope) ?? stats,
      undefined,
      mine.length,
      rate(pass.length, mine.length),
    );
    if (pass.length >= p.k || mine.length < n) return pass.slice(0, p.k);
    return p.exact(p.k);
  }

  private learn(
    scope: string,
    cur: ScopeStats,
    share: number | undefined,
    seen: number,
    passRate: number,
  ): void {
    if (!this.scopes.has(scope) && this.scopes.size >= MAX_SCOPES) this.scopes.clear(); // workspaces come and go
    const avg = (old: number, x: number) => (this.scopes.has(scope) ? 0.5 * old + 0.5 * x : x);
    this.scopes.set(scope, {
      share: share === undefined ? cur.share : avg(cur.share, share),
      passRate: seen ? avg(cur.passRate, passRate) : cur.passRate,
      sinceProbe: share === undefined ? cur.sinceProbe : 0,
      ...(cur.skipListing ? { skipListing: cur.skipListing } : {}),
    });
  }
}
