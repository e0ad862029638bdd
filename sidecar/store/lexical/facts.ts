/**
 * What recall filters, fuses and ranks a memory or an episode by, kept in the lexical index beside its
 * words (lexical.ts, `lex_ids.facts`): the vector channels then come back as ids and distances only, the
 * lexical hits with their facts, and fusion, the relative cut and the reweighing run on these; only the few
 * items recall answers with (and the turns it quotes) are read from Chroma. Chroma stays the source of
 * truth: every write of a memory or an episode writes its facts too (store/memoryStore.ts,
 * store/episodeStore.ts), the start of the sidecar checks them against Chroma (lexicalSync.ts), and an id
 * without facts (an older index) is read from Chroma as before.
 */
import { tierOf, tierOfRole, type Episode, type Memory, type MemoryStatus, type Tier } from '../../model';

/** A turn ending in a question mark (full-width too), trailing spaces allowed. */
export const ASKS = /[?？]\s*$/;

/**
 * Bumped whenever what the facts hold or how they are derived changes (e.g. {@link ASKS}): facts of
 * another version are treated as absent and rewritten by the next start's check.
 */
export const FACTS_VERSION = 2;

export interface MemoryFacts {
  kind: 'memory';
  status: MemoryStatus;
  confidence: number;
  /** When it happened (`occurred_at`), else when it was stored: the order of a "now" question. */
  when: string;
  /** Its text asks instead of tells ({@link ASKS}). */
  asks: boolean;
  /** It has resolved times (`times`): preferred by a "when" question. */
  timed: boolean;
  /** What it was taken from (`msg:…` refs): an evidence turn it cites is not quoted again. */
  source_ref: string[];
  /** Who vouches for it (model.ts `Tier`): weighs its rank. */
  tier: Tier;
  /** When a person last changed its text: the turns it was taken from no longer say the current fact. */
  edited_at?: string;
}

export interface EpisodeFacts {
  kind: 'episode';
  when: string;
  asks: boolean;
  timed: boolean;
  message_id: string;
  /** The memories taken from the turn (a turn whose memories are all marked wrong is never quoted). */
  memory_ids: string[];
  /** The turns before and after it in its session ('' = none; absent: kept before the links existed). */
  previous_id?: string;
  next_id?: string;
  /** Who said it: weighs its rank. */
  tier: Tier;
  /** Held by the write-time firewall: quoted only once a person confirmed a memory taken from it. */
  held?: boolean;
  /** The rules' chatter class (venting, small talk, a hedge…): quoted only when the question is about it. */
  chatter?: string;
}

export type RankFacts = MemoryFacts | EpisodeFacts;

export function memoryFacts(m: Memory): MemoryFacts {
  return {
    kind: 'memory',
    status: m.status,
    confidence: m.confidence_score,
    when: m.occurred_at ?? m.created_at,
    asks: ASKS.test(m.text),
    timed: !!m.times?.length,
    source_ref: m.source_ref,
    tier: tierOf(m),
    ...(m.edited_at ? { edited_at: m.edited_at } : {}),
  };
}

export function episodeFacts(e: Episode): EpisodeFacts {
  return {
    kind: 'episode',
    when: e.occurred_at,
    asks: ASKS.test(e.text),
    timed: e.times.length > 0,
    message_id: e.message_id,
    memory_ids: e.memory_ids,
    ...(e.previous_id !== undefined ? { previous_id: e.previous_id } : {}),
    ...(e.next_id !== undefined ? { next_id: e.next_id } : {}),
    tier: e.tier ?? tierOfRole(e.role),
    ...(e.held ? { held: true } : {}),
    ...(e.chatter ? { chatter: e.chatter } : {}),
  };
}

/** The facts as stored (JSON with the version). */
export function encodeFacts(f: RankFacts): string {
  return JSON.stringify({ v: FACTS_VERSION, ...f });
}

/** Stored facts back, or undefined when absent, malformed or of another version. */
export function decodeFacts(json: unknown): RankFacts | undefined {
  if (typeof json !== 'string' || !json) return undefined;
  try {
    const { v, ...f } = JSON.parse(json) as { v?: unknown } & Partial<RankFacts>;
    if (v !== FACTS_VERSION || (f.kind !== 'memory' && f.kind !== 'episode')) return undefined;
    return f as RankFacts;
  } catch {
    return undefined;
  }
}
