/**
 * Several captures' memories decided under one write lock with one round of store reads (group commit, the
 * capture worker's backlog): each capture's candidates are looked up before any of the group is written, so
 * what the captures before it in the group decided is laid over what it looked up — as if their writes had
 * been read back. Pure: the memories as the earlier plans leave them, and the memories they created with
 * their vectors (a candidate near one of those repeats it, as it would repeat it once stored).
 */
import { cosineDistance } from '../embed/vectors';
import type { Memory } from '../model';
import type { Candidate } from '../pipeline/types';
import type { Neighbour } from '../store/memoryStore';
import { candidateIds, CHANGE_KINDS, CHANGED_FIELDS, type StoreLookup, type StorePlan } from './storePlan';

export class GroupOverlay {
  /** Every memory an earlier plan of the group wrote, in its latest version. */
  private readonly latest = new Map<string, Memory>();
  /** The memories the group created, with their vectors, in order. */
  private readonly created: { id: string; vector: number[] }[] = [];

  /** The memory as the group's plans so far leave it (the argument when none touched it). */
  version(m: Memory): Memory {
    return this.latest.get(m.id) ?? m;
  }

  /** A memory a plan of the group wrote, in its latest version. */
  get(id: string): Memory | undefined {
    return this.latest.get(id);
  }

  /**
   * Takes in what a plan of the group decided (call in the group's order). A stored memory takes from each
   * change the fields that change writes (the apply stage writes those fields, not whole memories), in the
   * order they are written.
   */
  absorb(plan: StorePlan): void {
    for (const r of plan.created) {
      if (!this.latest.has(r.memory.id)) this.created.push({ id: r.memory.id, vector: r.vector });
      this.latest.set(r.memory.id, r.memory);
    }
    for (const kind of CHANGE_KINDS)
      for (const [id, c] of plan[kind]) {
        const picked = Object.fromEntries(CHANGED_FIELDS[kind].map((f) => [f, c.after[f]]));
        this.latest.set(id, { ...(this.latest.get(id) ?? c.after), ...picked });
      }
  }

  /**
   * What a capture looked up, as the store would answer after the group's earlier plans: the memories they
   * changed in their latest version, those they created under the candidates' ids, and a memory they created
   * as the nearest neighbour of a candidate it is nearer to (in the candidate's project and category, where a
   * neighbour of the project wins over a global one, as in the look-up).
   */
  lookup(
    found: StoreLookup,
    project: string,
    cands: readonly Candidate[],
    vectors: readonly number[][],
    limit: number,
  ): StoreLookup {
    if (this.latest.size === 0) return found;
    const ids = candidateIds(project, cands);
    const byId = new Map([...found.byId].map(([id, m]) => [id, this.version(m)]));
    for (const id of ids) {
      const m = this.latest.get(id);
      if (m) byId.set(id, m);
    }
    // A newer value the group created or changed is found by currentValue (storePlan.ts) through byId.
    for (const m of this.latest.values()) if (!byId.has(m.id)) byId.set(m.id, m);
    const current = found.current && new Map([...found.current].map(([id, m]) => [id, this.version(m)]));
    const nearest = new Map<number, Neighbour>();
    cands.forEach((c, i) => {
      if (byId.has(ids[i]!)) return; // decided by its id
      const stored = found.nearest.get(i);
      const n = stored && { memory: this.version(stored.memory), distance: stored.distance };
      let best = n && n.memory.project_id === project ? n : undefined;
      for (const r of this.created) {
        const m = this.latest.get(r.id)!;
        if (m.project_id !== project || m.category !== c.category || m.status === 'superseded') continue;
        const distance = cosineDistance(r.vector, vectors[i]!);
        if (distance < limit && (!best || distance < best.distance)) best = { memory: m, distance };
      }
      const chosen = best ?? n;
      if (chosen) nearest.set(i, chosen);
    });
    return { byId, nearest, ...(current ? { current } : {}) };
  }
}
