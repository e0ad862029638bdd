/**
 * Recall's vector channel over memories: the k memories of the workspace's projects nearest to a question,
 * found the cheapest way that is exact (store/nearest.ts plans it): unfiltered neighbours as ids checked
 * against the lexical index's facts, or the listed members of a small scope, and Chroma's filtered query
 * only when nothing else finds k. Reads through the store's own calls, so it holds no connection itself.
 */
import type { Where } from 'chromadb';
import type { Memory, MemoryStatus } from '../model';
import { errorMessage } from '../shared/errors';
import { memoryFacts, type MemoryFacts } from './lexical/facts';
import type { Indexed } from './lexical/lexical';
import type { LexicalMirror } from './lexicalMirror';
import { MAX_LISTED, NearestPlanner, readBackInScope, type IdDistance, type Known } from './nearest';
import { buildWhere } from './where';

/**
 * A memory as recall's vector channel finds it: its id, distance and what it is filtered and ranked by
 * (store/lexical/facts.ts); the memory itself only when it was read from Chroma anyway.
 */
export interface MemoryHit {
  id: string;
  distance: number;
  project: string;
  facts: MemoryFacts;
  memory?: Memory;
}

const hitOf = (memory: Memory, distance: number): MemoryHit => ({
  id: memory.id,
  distance,
  project: memory.project_id,
  facts: memoryFacts(memory),
  memory,
});

/** Chroma 1.0's answer to a query restricted to ids when one of them is not in the collection. */
const MISSING_ID = /Error finding id/i;

/** The index's entries of memories, with only a memory's facts kept. */
function memoryKnown(indexed: Map<string, Indexed>): Map<string, Known<MemoryFacts>> {
  const out = new Map<string, Known<MemoryFacts>>();
  for (const [id, x] of indexed)
    out.set(id, x.facts?.kind === 'memory' ? { project: x.project, facts: x.facts } : { project: x.project });
  return out;
}

/** A memory and how far it is from a vector. */
export interface Neighbour {
  memory: Memory;
  /** Cosine distance 0..2 (0 = same direction). */
  distance: number;
}

/** The store's reads this channel is made of. */
export interface NearestReads {
  lexical: LexicalMirror;
  query(vector: number[], where: Where | undefined, n: number): Promise<Neighbour[]>;
  nearestIds(vector: number[], n: number, among?: string[]): Promise<IdDistance[]>;
  get(ids: string[]): Promise<Memory[]>;
  /** Takes out of the lexical index the ids Chroma no longer has. */
  unindexGone(ids: string[]): Promise<void>;
}

export class NearestMemories {
  /** Chooses how nearest-neighbour queries filter by project (store/nearest.ts). */
  private readonly planner = new NearestPlanner();

  constructor(private readonly store: NearestReads) {}

  /**
   * The k memories of these projects nearest to a vector with one of these statuses and a confidence
   * above the minimum, through the {@link planner} (store/nearest.ts): the unfiltered neighbours come as
   * ids, their projects, statuses and confidences from the lexical index (store/lexical/facts.ts), and only what
   * the index has no facts for is read from Chroma; Chroma's fully filtered query runs only when nothing
   * else finds k. Hits found by those queries carry their memory; the others only their facts.
   */
  async find(
    vector: number[],
    projects: string[],
    k: number,
    only: { status: MemoryStatus[]; min_confidence: number },
  ): Promise<MemoryHit[]> {
    const rows = async (w: Where | undefined, n: number) =>
      (await this.store.query(vector, w, n)).map((x) => hitOf(x.memory, x.distance));
    const passes = (f: MemoryFacts) => only.status.includes(f.status) && f.confidence > only.min_confidence;
    // Asked for every question (it starts the background check), so the answer is known by the time the
    // planner has learned the scope's share.
    const trusted = this.store.lexical.trusted();
    return this.planner.nearest<MemoryHit>({
      scope: projects.join('\u0000'),
      k,
      unfiltered: async (n) =>
        readBackInScope(
          await this.store.nearestIds(vector, n),
          projects,
          async (ids) => memoryKnown(await this.store.lexical.indexed(ids, projects)),
          (ids) => this.store.get(ids),
          hitOf,
          (id, project, facts, distance) => ({ id, distance, project, facts }),
        ),
      scoped: (n) => rows(buildWhere({ project_ids: projects }), n),
      listed: async (n) => {
        if (!trusted) return undefined;
        const members = await this.store.lexical.members(projects, MAX_LISTED);
        if (members === 'too-many') return 'unlistable';
        if (!members) return undefined;
        // Those the index knows not to pass are not sent (the planner checks the rest against what it reads).
        const ids = [...members]
          .filter(([, x]) => x.facts?.kind !== 'memory' || passes(x.facts))
          .map(([id]) => id);
        if (!ids.length) return { items: [], all: true };
        let near: IdDistance[];
        try {
          near = await this.store.nearestIds(vector, Math.min(n, ids.length), ids);
        } catch (e) {
          // Chroma refuses the whole query when one id is gone: a memory deleted (by another process) and
          // not yet out of the index. This answer takes the planner's other paths; the index is mended.
          if (!MISSING_ID.test(errorMessage(e))) throw e;
          await this.store.unindexGone(ids);
          return undefined;
        }
        const wide = await readBackInScope(
          near,
          projects,
          async () => memoryKnown(members),
          (ids) => this.store.get(ids),
          hitOf,
          (id, project, facts, distance) => ({ id, distance, project, facts }),
        );
        return { items: await wide.read(0, wide.candidates), all: near.length < n };
      },
      exact: (n) => rows(buildWhere({ project_ids: projects, ...only }), n),
      inScope: (x) => projects.includes(x.project),
      passes: (x) => passes(x.facts),
    });
  }
}
