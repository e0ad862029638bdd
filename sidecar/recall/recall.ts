/**
 * Recall: the few memories that matter for a question, then the evidence — turns of past sessions as they
 * were said — under the token budget.
 *
 * Channels, each over the workspace's projects (memories also over global ones; episodes never leave
 * their project):
 *   - vector: the question's embedding against memories and, separately, against episodes;
 *   - lexical: BM25 over memories and episodes (lexical.ts), which finds names, numbers and rare words
 *     that embeddings blur;
 *   - rule: when the vector channel finds nothing strong, recent troubleshooting logs sharing an entity.
 * The channels' ranked lists are fused by reciprocal rank fusion. Instead of a fixed similarity floor, a
 * candidate is cut relative to the best of its channel, so relevant candidates fill k and noise does not.
 * Memories come first, then evidence; a turn already cited by a recalled memory is not quoted again.
 */
import type { Core } from '../core';
import { InvalidInputError } from '../errors';
import { GLOBAL_PROJECT, type Episode, type Memory, type MemoryStatus } from '../model';
import { redactText } from '../pipeline/redact';
import type { RecallChannel, RecallItem, RecallParams, RecallResult } from '../protocol';
import type { EpisodeNeighbour } from '../store/episodeStore';
import { buildWhere, type Neighbour } from '../store/memoryStore';
import { clampInt, round } from '../util/numbers';
import { entityOverlap, extractEntities } from './entities';
import { episodeAsMemory, formatBlock } from './format';
import type { LexicalHit } from './lexical';
import { cutText } from '../shared/text';

/** A recallable memory: not pending, wrong or archived. */
export const RECALLABLE: MemoryStatus[] = ['active', 'confirmed'];
const DAY_MS = 24 * 3600 * 1000;
/** Reciprocal rank fusion's constant (Cormack et al.): 1 / (RRF_K + rank). */
const RRF_K = 60;
/** A vector candidate is kept when its similarity is within this of the best of its kind (or above the floor setting). */
const RELATIVE_SIMILARITY = 0.25;
/** Nothing under this cosine similarity is a match, whatever the best was. */
const ABSOLUTE_SIMILARITY = 0.05;
/** A lexical candidate is kept when its BM25 score is at least this share of the best. */
const RELATIVE_LEXICAL = 0.2;

interface Candidate {
  kind: 'memory' | 'evidence';
  memory: Memory;
  episode?: Episode;
  /** Best cosine similarity (vector channel). */
  similarity?: number;
  /** Lexical score relative to the best (0..1). */
  lexical?: number;
  rule?: number;
  rrf: number;
  channels: Set<RecallChannel>;
}

export async function recall(core: Core, p: RecallParams): Promise<RecallResult> {
  if (!p || typeof p.query !== 'string' || !p.query.trim())
    throw new InvalidInputError('The recall query is empty.');
  if (!Array.isArray(p.project_ids) || p.project_ids.some((x) => typeof x !== 'string')) {
    throw new InvalidInputError(
      'recall needs project_ids (the projects of the current workspace), a list of strings.',
    );
  }
  const settings = core.config.recall;
  const topK = clampInt(p.top_k ?? settings.topK, 1, 50);
  const minConfidence = p.min_confidence ?? settings.minConfidence;
  const budget = p.token_budget ?? settings.tokenBudget;
  const own = [...new Set(p.project_ids)].filter((x) => x !== GLOBAL_PROJECT);
  const projects = [...own, GLOBAL_PROJECT];
  const { text: query } = await redactText(cutText(p.query, 2000)); // a query, not content: its start is enough
  await core.requireModel();
  const [vector] = await core.embedding.embed([query]);
  const wide = Math.max(20, topK * 4);

  const recallable = (m: Memory) =>
    projects.includes(m.project_id) && RECALLABLE.includes(m.status) && m.confidence_score > minConfidence;
  const [memVec, epVec, lexHits] = await Promise.all([
    nearestRecallable(core, vector, projects, minConfidence, wide),
    core.config.episodes.keep
      ? core.episodes.query(vector, own, wide)
      : Promise.resolve<EpisodeNeighbour[]>([]),
    core.store.lexicalIndex?.run(
      'search',
      (ix) => ix.search(query, { projects, limit: wide * 2 }),
      [] as LexicalHit[],
    ) ?? Promise.resolve<LexicalHit[]>([]),
  ]);

  const byKey = new Map<string, Candidate>();
  const add = (c: Omit<Candidate, 'rrf' | 'channels'>, channel: RecallChannel, rank: number) => {
    const cur = byKey.get(c.memory.id);
    if (cur) {
      cur.similarity = c.similarity ?? cur.similarity;
      cur.lexical = c.lexical ?? cur.lexical;
      cur.rule = c.rule ?? cur.rule;
      cur.rrf += 1 / (RRF_K + rank);
      cur.channels.add(channel);
    } else {
      byKey.set(c.memory.id, { ...c, rrf: 1 / (RRF_K + rank), channels: new Set([channel]) });
    }
  };
  const floor = (best: number) =>
    p.min_similarity ??
    Math.max(ABSOLUTE_SIMILARITY, Math.min(settings.minSimilarity, best - RELATIVE_SIMILARITY));

  // vector, memories and episodes ranked separately (each kind has its own best)
  const memSims = memVec.map((n) => ({ n, sim: 1 - n.distance }));
  const memFloor = floor(memSims[0]?.sim ?? 0);
  memSims
    .filter((x) => x.sim >= memFloor)
    .forEach((x, i) =>
      add({ kind: 'memory', memory: x.n.memory, similarity: round(x.sim) }, 'vector', i + 1),
    );
  const epSims = epVec.map((n) => ({ n, sim: 1 - n.distance }));
  const epFloor = floor(epSims[0]?.sim ?? 0);
  epSims
    .filter((x) => x.sim >= epFloor)
    .forEach((x, i) =>
      add(
        {
          kind: 'evidence',
          memory: episodeAsMemory(x.n.episode),
          episode: x.n.episode,
          similarity: round(x.sim),
        },
        'vector',
        i + 1,
      ),
    );

  // lexical: hydrate what the vector channel did not bring, and keep only what may be recalled
  const bestLex = lexHits[0]?.score ?? 0;
  const lex = lexHits.filter((h) => h.score >= bestLex * RELATIVE_LEXICAL);
  const knownMem = new Map(memVec.map((n) => [n.memory.id, n.memory]));
  const knownEp = new Map(epVec.map((n) => [n.episode.id, n.episode]));
  const [lexMems, lexEps] = await Promise.all([
    core.store.get(lex.filter((h) => h.kind === 'memory' && !knownMem.has(h.id)).map((h) => h.id)),
    core.config.episodes.keep
      ? core.episodes.get(lex.filter((h) => h.kind === 'episode' && !knownEp.has(h.id)).map((h) => h.id))
      : Promise.resolve<Episode[]>([]),
  ]);
  for (const m of lexMems) knownMem.set(m.id, m);
  for (const e of lexEps) knownEp.set(e.id, e);
  lex.forEach((h, i) => {
    const rel = bestLex > 0 ? round(h.score / bestLex) : 0;
    if (h.kind === 'memory') {
      const m = knownMem.get(h.id);
      if (m && recallable(m)) add({ kind: 'memory', memory: m, lexical: rel }, 'lexical', i + 1);
    } else {
      const e = knownEp.get(h.id);
      if (e && own.includes(e.project_id))
        add({ kind: 'evidence', memory: episodeAsMemory(e), episode: e, lexical: rel }, 'lexical', i + 1);
    }
  });

  // rule: recent troubleshooting logs sharing an entity, when no memory is a strong vector match
  if ((memSims[0]?.sim ?? 0) < settings.weakSimilarity) {
    const entities = extractEntities(query);
    if (entities.length > 0) {
      const since = new Date(core.clock().getTime() - 7 * DAY_MS).toISOString();
      const logs = await core.store.find(
        buildWhere({ project_ids: own, source_type: 'troubleshooting_log', status: RECALLABLE, since }),
      );
      logs
        .map(({ memory }) => ({ memory, overlap: entityOverlap(entities, memory.text) }))
        .filter((x) => x.overlap > 0)
        .sort((a, b) => b.overlap * b.memory.confidence_score - a.overlap * a.memory.confidence_score)
        .forEach((x, i) => add({ kind: 'memory', memory: x.memory, rule: round(x.overlap) }, 'rule', i + 1));
    }
  }

  const ranked = [...byKey.values()].sort(
    (a, b) => b.rrf - a.rrf || (b.similarity ?? 0) - (a.similarity ?? 0),
  );
  // The best k of both kinds in fused order; a turn a chosen memory already cites is not quoted again.
  const picked: Candidate[] = [];
  const cited = new Set<string>();
  const citeKey = (project: string, ref: string) => `${project}\u0000${ref}`;
  for (const c of ranked) {
    if (picked.length >= topK) break;
    if (c.kind === 'evidence' && cited.has(citeKey(c.memory.project_id, `msg:${c.episode!.message_id}`)))
      continue;
    picked.push(c);
    if (c.kind === 'memory') for (const r of c.memory.source_ref) cited.add(citeKey(c.memory.project_id, r));
  }
  // Items stay in fused order (most relevant first); the block shows the memories first, then the evidence.
  const chosen = picked;

  const items: RecallItem[] = chosen.map((c) => {
    const channels = (['vector', 'lexical', 'rule'] as const).filter((ch) => c.channels.has(ch));
    return {
      kind: c.kind,
      memory: c.memory,
      ...(c.episode ? { episode: c.episode } : {}),
      score: c.similarity ?? c.lexical ?? c.rule ?? 0,
      channel: channels[0]!,
      channels,
      source_ref: c.memory.source_ref,
    };
  });
  const { block, tokens, included } = formatBlock(items, budget, p.locale);
  const kept = items.slice(0, included);
  const usedMemories = kept.filter((i) => i.kind === 'memory');
  if (p.mark_used !== false && usedMemories.length > 0) {
    // Written behind the answer: recall is on an agent's hot path; the store's reads wait for it.
    core.store.markUsed(
      usedMemories.map((i) => i.memory.id),
      core.now(),
    );
  }
  return { items: kept, block, tokens };
}

/**
 * The top-k recallable memories of these projects nearest to a vector. Chroma's filtered query costs
 * time in proportion to the rows the filter matches (50 ms at 10k memories against 8 ms unfiltered), so
 * the nearest 10·k overall are fetched first and filtered here — exact, since any recallable memory
 * outside them is farther than all of them — and the filtered query runs only when fewer than k pass.
 */
async function nearestRecallable(
  core: Core,
  vector: number[],
  projects: string[],
  minConfidence: number,
  k: number,
): Promise<Neighbour[]> {
  const passes = (m: Memory) =>
    projects.includes(m.project_id) && RECALLABLE.includes(m.status) && m.confidence_score > minConfidence;
  const wide = await core.store.query(vector, undefined, Math.max(50, k * 10));
  const hits = wide.filter((n) => passes(n.memory)).slice(0, k);
  if (hits.length === k || wide.length < Math.max(50, k * 10)) return hits;
  return core.store.query(
    vector,
    buildWhere({ project_ids: projects, status: RECALLABLE, min_confidence: minConfidence }),
    k,
  );
}
