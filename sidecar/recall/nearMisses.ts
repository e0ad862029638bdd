/**
 * Near misses of a recall (`explain`, for Preview Injection): the memories nearest to the query that did
 * not reach the agent, each with the reason — another project, a status that is never recalled (pending,
 * wrong, archived), confidence at or under the minimum, under the relative cut, beyond top_k, or over the
 * token budget. Read-only: one unfiltered nearest-neighbour query.
 */
import type { Core } from '../core';
import type { MemoryStatus } from '../model';
import type { NearMiss, NearMissReason } from '../protocol';
import { round } from '../util/numbers';

/** How many near misses a preview lists. */
const LIMIT = 8;
/** Under this similarity a memory is not near at all. */
const NOT_NEAR = 0.1;

export interface RecallOutcome {
  vector: number[];
  projects: string[];
  minConfidence: number;
  /** The statuses recall takes (active, confirmed). */
  recallable: readonly MemoryStatus[];
  /** The vector channel's cut for memories. */
  floor: number;
  /** Ids of every fused candidate, of those among the top k, and of those in the block. */
  candidates: Set<string>;
  picked: Set<string>;
  kept: Set<string>;
}

export async function nearMisses(core: Core, o: RecallOutcome): Promise<NearMiss[]> {
  const near = await core.store.query(o.vector, undefined, LIMIT * 3);
  const out: NearMiss[] = [];
  for (const n of near) {
    const m = n.memory;
    const score = round(1 - n.distance);
    if (o.kept.has(m.id) || score < NOT_NEAR) continue;
    const reason: NearMissReason = !o.projects.includes(m.project_id)
      ? 'other_project'
      : !o.recallable.includes(m.status)
        ? 'not_recallable'
        : !(m.confidence_score > o.minConfidence)
          ? 'low_confidence'
          : o.picked.has(m.id)
            ? 'over_budget'
            : o.candidates.has(m.id)
              ? 'beyond_top_k'
              : score < o.floor
                ? 'below_cut'
                : 'beyond_top_k';
    out.push({ memory: m, score, reason });
    if (out.length >= LIMIT) break;
  }
  return out;
}
