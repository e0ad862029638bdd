/**
 * Which turns recall does not quote (docs/design.md, "Trust: clean evidence"). A turn is withheld, as a
 * candidate, as the context of another turn and in a thread, when:
 *   - a memory taken from it (or that it says: turnsSaying.ts) was marked wrong — whatever else
 *     the turn says, quoting it repeats what the user said is false;
 *   - a memory taken from it was edited since: the turn says what the memory no longer says;
 *   - the firewall held it (pipeline/firewall.ts) and no memory taken from it was confirmed by a person;
 *   - every memory taken from it is kept out of recall by its confidence or was archived (the filters that
 *     keep a memory out keep its turns out too);
 *   - the rules dropped all of it as chatter (venting, small talk, a hedge, a passing remark), unless the
 *     question is about that ("what did I complain about?");
 *   - it is of a lower tier than the caller asked for (`min_tier`).
 * The linked memories' statuses come from the facts the channels brought, then the lexical index, and Chroma
 * only for what the index has no facts of.
 */
import type { Core } from '../core';
import { tierRank, type Episode, type MemoryStatus, type Tier } from '../model';
import { ABOUT_CHATTER } from '../pipeline/lexicon';
import type { EpisodeFacts, RankFacts } from '../store/lexical/facts';
import { episodeFacts } from '../store/lexical/facts';

/** What a linked memory says about quoting its turn. */
export interface Linked {
  status: MemoryStatus;
  confidence: number;
  edited: boolean;
}

/** A memory or turn a channel found, with its facts. */
interface Known {
  id: string;
  facts: RankFacts;
}

/**
 * What the linked memories of these ids are: from the facts the channels brought, then the lexical index,
 * and Chroma only for what the index has no facts of.
 */
export async function linkedOf(core: Core, ids: string[], known: Known[] = []): Promise<Map<string, Linked>> {
  const out = new Map<string, Linked>();
  const put = (id: string, f: RankFacts | undefined) => {
    if (f?.kind === 'memory')
      out.set(id, { status: f.status, confidence: f.confidence, edited: !!f.edited_at });
  };
  for (const x of known) put(x.id, x.facts);
  const missing = () => [...new Set(ids)].filter((id) => !out.has(id));
  for (const [id, x] of await core.store.lexical.indexed(missing())) put(id, x.facts);
  for (const m of await core.store.get(missing()))
    out.set(m.id, { status: m.status, confidence: m.confidence_score, edited: !!m.edited_at });
  return out;
}

export interface WithheldOptions {
  /** The recall's confidence floor: a turn whose memories are all under it is not quoted. */
  minConfidence: number;
  /** The question: a chatter turn is quoted when it is about chatter. */
  query: string;
  /** Only turns of this tier or higher. */
  minTier?: Tier;
}

/** The predicate: whether a turn (by its facts) is withheld, given its linked memories. */
export function withheldBy(
  linked: Map<string, Linked>,
  o: WithheldOptions,
): (f: Pick<EpisodeFacts, 'memory_ids' | 'held' | 'chatter' | 'tier'>) => boolean {
  const aboutChatter = ABOUT_CHATTER.test(o.query);
  const floor = o.minTier ? tierRank(o.minTier) : 0;
  return (f) => {
    const ms = f.memory_ids.map((id) => linked.get(id)).filter((m): m is Linked => m !== undefined);
    if (ms.some((m) => m.status === 'wrong' || m.edited)) return true;
    if (f.held && !ms.some((m) => m.status === 'confirmed')) return true;
    if (tierRank(f.tier) < floor) return true;
    if (f.chatter && !aboutChatter) return true;
    const keptOut = (m: Linked) =>
      m.status === 'archived' || (m.status !== 'superseded' && m.confidence <= o.minConfidence);
    return ms.length > 0 && ms.every(keptOut);
  };
}

/** The facts of a turn as read (a thread's or an excerpt's turns carry no facts of their own). */
export const factsOfTurn = (e: Episode): EpisodeFacts => episodeFacts(e);

/** Every memory id a set of turns links to. */
export const linksOf = (turns: Pick<EpisodeFacts, 'memory_ids'>[]): string[] => [
  ...new Set(turns.flatMap((t) => t.memory_ids)),
];

/** Threads cut before the first withheld turn. */
export async function threadsWithoutWithheld(
  core: Core,
  threads: Map<string, Episode[]>,
  o: WithheldOptions,
): Promise<Map<string, Episode[]>> {
  const turns = [...threads.values()].flat();
  if (turns.length === 0) return threads;
  const withheld = withheldBy(await linkedOf(core, linksOf(turns)), o);
  const out = new Map<string, Episode[]>();
  for (const [id, thread] of threads) {
    const cut = thread.findIndex((e) => withheld(factsOfTurn(e)));
    const kept = cut < 0 ? thread : thread.slice(0, cut);
    if (kept.length) out.set(id, kept);
  }
  return out;
}
