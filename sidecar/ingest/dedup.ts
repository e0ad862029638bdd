/**
 * The dedup decision, pure: does a candidate repeat something already known — the same text stored
 * (same id), its nearest stored neighbour, or a memory created earlier in the same batch — and is that
 * memory a tombstone (marked wrong) that blocks it? Used by ingest (a duplicate refreshes the memory it
 * repeats) and by bulk import (a duplicate is skipped). No Chroma, no embedder: the caller looks the
 * neighbours up and passes them in.
 */
import { cosineDistance } from '../embed/vectors';
import type { Category, Memory } from '../model';
import { classifyFactChange } from './factChange';

export interface DedupCandidate {
  /** The id the candidate would be stored under (memoryId of its project and text). */
  id: string;
  /** The candidate's text; with the matched memory's text it is what a same-fact check (fact vs update) compares. */
  text: string;
  category: Category;
  project_id: string;
  vector: number[];
}

/** What the caller knows that the candidate might repeat; pass each memory in its latest version. */
export interface DedupKnown {
  /** The stored memory with the candidate's id. */
  sameId?: Memory;
  /** The candidate's nearest stored neighbour (any distance; the decision applies the limit). */
  neighbour?: { memory: Memory; distance: number };
  /** Memories created earlier in this batch, in order, with their vectors. */
  earlier?: readonly { memory: Memory; vector: number[] }[];
}

/** How the repeated memory was found. */
export type DedupVia = 'same-id' | 'neighbour' | 'batch';

export type DedupDecision =
  | { kind: 'new' }
  /** Repeats `of`, at this cosine distance (0 for the same text). */
  | { kind: 'duplicate'; of: Memory; distance: number; via: DedupVia }
  /** Repeats `of`, which was marked wrong: never stored again. */
  | { kind: 'blocked'; of: Memory; distance: number; via: DedupVia }
  /** Near `of` but a changed fact (another number, version, negation, name): the candidate supersedes it. */
  | { kind: 'update'; of: Memory; distance: number; via: DedupVia; reason: string }
  /** Near `of` and maybe a changed fact: both go to review. */
  | { kind: 'unsure'; of: Memory; distance: number; via: DedupVia; reason: string }
  /**
   * The same text as `of`, an older value of a fact that a newer memory replaced: said again, it is the value
   * in use again ("5000 ms", then "3000 ms", then "5000 ms" once more).
   */
  | { kind: 'restated'; of: Memory; distance: 0; via: 'same-id' };

/**
 * Decides one candidate. The same id wins over a neighbour, a neighbour (under `limit`) over an earlier
 * memory of the batch; an earlier memory counts only in the same project and category.
 */
export function decideDedup(c: DedupCandidate, known: DedupKnown, limit: number): DedupDecision {
  const match = findMatch(c, known, limit);
  if (!match) return { kind: 'new' };
  if (match.via === 'same-id' && match.memory.status === 'superseded')
    return { kind: 'restated', of: match.memory, distance: 0, via: 'same-id' };
  if (match.memory.status === 'wrong') {
    // A memory marked wrong blocks what it says (its words or a paraphrase), not a changed value of the same
    // fact: "timeout 1500 ms" marked wrong, then "timeout 3000 ms" is the correction, learned as new.
    const verdict = match.via === 'same-id' ? 'same' : classifyFactChange(c.text, match.memory.text).verdict;
    if (verdict === 'update' || verdict === 'distinct') return { kind: 'new' };
    return { kind: 'blocked', of: match.memory, distance: match.distance, via: match.via };
  }
  // Near-duplicate text is not the same fact: "timeout 1500 ms" -> "timeout 3000 ms" is an update.
  if (match.via !== 'same-id') {
    const change = classifyFactChange(c.text, match.memory.text);
    // Another attribute or action of the same subject: a fact of its own, whatever its wording shares.
    if (change.verdict === 'distinct') return { kind: 'new' };
    if (change.verdict === 'update')
      return {
        kind: 'update',
        of: match.memory,
        distance: match.distance,
        via: match.via,
        reason: change.reason,
      };
    if (change.verdict === 'unsure')
      return {
        kind: 'unsure',
        of: match.memory,
        distance: match.distance,
        via: match.via,
        reason: change.reason,
      };
  }
  return { kind: 'duplicate', of: match.memory, distance: match.distance, via: match.via };
}

function findMatch(
  c: DedupCandidate,
  known: DedupKnown,
  limit: number,
): { memory: Memory; distance: number; via: DedupVia } | undefined {
  if (known.sameId) return { memory: known.sameId, distance: 0, via: 'same-id' };
  if (known.neighbour && known.neighbour.distance < limit) return { ...known.neighbour, via: 'neighbour' };
  for (const r of known.earlier ?? []) {
    if (r.memory.project_id !== c.project_id || r.memory.category !== c.category) continue;
    const distance = r.memory.id === c.id ? 0 : cosineDistance(r.vector, c.vector);
    if (distance < limit) return { memory: r.memory, distance, via: 'batch' };
  }
  return undefined;
}
