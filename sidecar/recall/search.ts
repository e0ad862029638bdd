/**
 * Hybrid search for people (the Search Memories box): by meaning (the query's embedding) and by words (BM25
 * over the lexical index), fused by reciprocal rank like recall, and cut relative to the best of each
 * channel so that "how do we deploy" finds the deploy memories and not everything down to similarity 0.04.
 * Unlike recall it honours the caller's filter (statuses, category, source, time) and returns up to `limit`.
 */
import type { Core } from '../core';
import type { Memory } from '../model';
import type { SearchResult } from '../protocol';
import type { Where } from 'chromadb';
import { round } from '../util/numbers';
import type { LexicalHit } from '../store/lexical/lexical';

/** Nothing under this cosine similarity is a match (MiniLM puts unrelated sentences at 0–0.2). */
const MIN_SIMILARITY = 0.2;
/** A vector hit is kept when its similarity is within this of the best. */
const RELATIVE_SIMILARITY = 0.25;
/** A lexical hit is kept when its BM25 score is at least this share of the best. */
const RELATIVE_LEXICAL = 0.2;
const RRF_K = 60;

export interface HybridScope {
  query: string;
  /** The projects searched (undefined: all). */
  projectIds: string[] | undefined;
  /** The caller's filter as a Chroma where (statuses, category, …). */
  where: Where | undefined;
  /** The memories the filter allows, by id (the lexical channel's hits are checked against it). */
  allowed: Map<string, Memory>;
  limit: number;
}

export async function hybridSearch(core: Core, s: HybridScope): Promise<SearchResult> {
  await core.requireModel();
  const [vector] = await core.embedding.embed([s.query]);
  const wide = Math.max(20, s.limit * 2);
  const projects = s.projectIds ?? [...new Set([...s.allowed.values()].map((m) => m.project_id))];
  const [near, lexical] = await Promise.all([
    core.store.query(vector, s.where, wide),
    projects.length
      ? (core.store.lexical.index?.run(
          'search',
          (ix) => ix.search(s.query, { projects, kinds: ['memory'], limit: wide }),
          [] as LexicalHit[],
        ) ?? Promise.resolve<LexicalHit[]>([]))
      : Promise.resolve<LexicalHit[]>([]),
  ]);
  type Channel = SearchResult['items'][number]['channels'][number];
  const found = new Map<string, { memory: Memory; rrf: number; score: number; channels: Channel[] }>();
  const add = (memory: Memory, rank: number, score: number, channel: Channel): void => {
    const cur = found.get(memory.id);
    if (cur) {
      cur.rrf += 1 / (RRF_K + rank);
      cur.score = Math.max(cur.score, score);
      if (!cur.channels.includes(channel)) cur.channels.push(channel);
    } else found.set(memory.id, { memory, rrf: 1 / (RRF_K + rank), score, channels: [channel] });
  };
  const sims = near.map((n) => ({ memory: n.memory, sim: 1 - n.distance }));
  const floor = Math.max(MIN_SIMILARITY, (sims[0]?.sim ?? 0) - RELATIVE_SIMILARITY);
  sims.filter((x) => x.sim >= floor).forEach((x, i) => add(x.memory, i + 1, round(x.sim), 'vector'));
  const best = lexical[0]?.score ?? 0;
  lexical
    .filter((h) => h.score >= best * RELATIVE_LEXICAL && s.allowed.has(h.id))
    .forEach((h, i) => add(s.allowed.get(h.id)!, i + 1, best > 0 ? round(h.score / best) : 0, 'lexical'));
  const items = [...found.values()]
    .sort((a, b) => b.rrf - a.rrf || b.score - a.score)
    .slice(0, s.limit)
    .map(({ memory, score, channels }) => ({ memory, score, channels }));
  return { items };
}
