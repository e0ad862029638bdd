/**
 * Which stored memory a candidate is decided against (ingest/dedup.ts), from its nearest stored neighbours.
 * A superseded memory is an older value of a fact that has a newer one: a candidate near it is compared with
 * the fact's current value, never with the old one. Deciding against the old value let a value changed twice
 * ("timeout 1500 ms" → 3000 → 4500) supersede the first again and leave 3000 and 4500 both in use.
 */
import type { Memory } from '../model';
import type { Neighbour } from '../store/memoryStore';

/** How many neighbours are asked for per candidate: the current value is usually among the nearest few. */
export const NEIGHBOURS_ASKED = 3;
/** The longest chain of newer values followed (a fact changed more often is followed this far). */
const MAX_HOPS = 8;

/**
 * The neighbour each candidate is decided against, from its nearest stored memories (closest first): the
 * closest under `limit` that is still in use or marked wrong (a memory marked wrong blocks what it says);
 * when all of those are superseded, the current value of the closest (its `superseded_by` chain followed
 * with `get`), at that one's distance; when that chain leads nowhere (the newer value was deleted), the
 * superseded memory itself.
 */
export async function currentNeighbours(
  hits: Neighbour[][],
  limit: number,
  get: (ids: string[]) => Promise<Memory[]>,
): Promise<(Neighbour | undefined)[]> {
  const chosen = hits.map((list): Neighbour | undefined => {
    const near = list.filter((h) => h.distance < limit);
    return near.find((h) => h.memory.status !== 'superseded') ?? near[0];
  });
  const stale = chosen.flatMap((n, i) => (n?.memory.status === 'superseded' ? [i] : []));
  if (stale.length === 0) return chosen;
  const current = await latestVersions(
    stale.map((i) => chosen[i]!.memory),
    get,
  );
  stale.forEach((i, k) => {
    const m = current[k];
    if (m) chosen[i] = { memory: m, distance: chosen[i]!.distance };
  });
  return chosen;
}

/** The memory each superseded one leads to through its newer values (undefined when the chain breaks). */
export async function latestVersions(
  old: Memory[],
  get: (ids: string[]) => Promise<Memory[]>,
): Promise<(Memory | undefined)[]> {
  const at: (Memory | undefined)[] = [...old];
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const next = [
      ...new Set(at.flatMap((m) => (m?.status === 'superseded' && m.superseded_by ? [m.superseded_by] : []))),
    ];
    if (next.length === 0) break;
    const byId = new Map((await get(next)).map((m) => [m.id, m]));
    for (let i = 0; i < at.length; i++) {
      const m = at[i];
      if (m?.status === 'superseded') at[i] = m.superseded_by ? byId.get(m.superseded_by) : undefined;
    }
  }
  return at.map((m) => (m && m.status !== 'superseded' ? m : undefined));
}
