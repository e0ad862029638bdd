/**
 * Recall: the query is redacted and embedded; the vector channel finds the nearest recallable memories of
 * the workspace's projects and global ones; when it finds nothing strong, the rule channel adds recent
 * troubleshooting logs that share entities with the query (entities.ts); the ranked hits are formatted
 * under the token budget (format.ts) and marked used behind the answer.
 */
import type { Core } from '../core';
import { InvalidInputError } from '../errors';
import { GLOBAL_PROJECT, type Memory, type MemoryStatus } from '../model';
import { redactText } from '../pipeline/redact';
import type { RecallItem, RecallParams, RecallResult } from '../protocol';
import { buildWhere, type Neighbour } from '../store/memoryStore';
import { clampInt, round } from '../util/numbers';
import { entityOverlap, extractEntities } from './entities';
import { formatBlock } from './format';

/** A recallable memory: not pending, wrong or archived. */
export const RECALLABLE: MemoryStatus[] = ['active', 'confirmed'];
const DAY_MS = 24 * 3600 * 1000;

export async function recall(core: Core, p: RecallParams): Promise<RecallResult> {
  if (!p || typeof p.query !== 'string' || !p.query.trim()) throw new InvalidInputError('The recall query is empty.');
  if (!Array.isArray(p.project_ids)) throw new InvalidInputError('recall needs project_ids (the projects of the current workspace).');
  const settings = core.config.recall;
  const topK = clampInt(p.top_k ?? settings.topK, 1, 50);
  const minConfidence = p.min_confidence ?? settings.minConfidence;
  const budget = p.token_budget ?? settings.tokenBudget;
  const projects = [...new Set([...p.project_ids, GLOBAL_PROJECT])];
  const { text: query } = await redactText(p.query.slice(0, 2000));
  await core.requireModel();
  const [vector] = await core.embedding.embed([query]);
  const vectorHits: RecallItem[] = (await nearestRecallable(core, vector, projects, minConfidence, topK))
    .map((n): RecallItem => ({ memory: n.memory, score: round(1 - n.distance), channel: 'vector' }))
    .filter((i) => i.score >= (p.min_similarity ?? settings.minSimilarity));
  const items = [...vectorHits];
  const best = vectorHits[0]?.score ?? 0;
  if (vectorHits.length === 0 || best < settings.weakSimilarity) {
    const entities = extractEntities(query);
    if (entities.length > 0) {
      const since = new Date(core.clock().getTime() - 7 * DAY_MS).toISOString();
      const logs = await core.store.find(
        buildWhere({ project_ids: projects.filter((x) => x !== GLOBAL_PROJECT), source_type: 'troubleshooting_log', status: RECALLABLE, since }),
      );
      for (const { memory } of logs) {
        const overlap = entityOverlap(entities, memory.text);
        if (overlap > 0 && !items.some((i) => i.memory.id === memory.id)) items.push({ memory, score: round(overlap), channel: 'rule' });
      }
    }
  }
  // Rank: vector hits by similarity, rule hits by entity overlap weighted by confidence; vector first on ties.
  items.sort((a, b) => rank(b) - rank(a));
  const { block, tokens, included } = formatBlock(
    items.map((i) => i.memory),
    budget,
    p.locale,
  );
  const kept = items.slice(0, included);
  if (p.mark_used !== false && kept.length > 0) {
    // Written behind the answer: recall is on an agent's hot path; the store's reads wait for it.
    const now = core.now();
    core.store.writeBehind(
      'Marking recalled memories as used',
      kept.map((i) => ({ ...i.memory, last_used_at: now, use_count: i.memory.use_count + 1 })),
    );
  }
  return { items: kept, block, tokens };
}

function rank(i: RecallItem): number {
  return i.channel === 'vector' ? i.score + 0.001 : i.score * 0.9 * Math.max(0.5, i.memory.confidence_score);
}

/**
 * The top-k recallable memories of these projects nearest to a vector. Chroma's filtered query costs
 * time in proportion to the rows the filter matches (50 ms at 10k memories against 8 ms unfiltered), so
 * the nearest 10·k overall are fetched first and filtered here — exact, since any recallable memory
 * outside them is farther than all of them — and the filtered query runs only when fewer than k pass.
 */
async function nearestRecallable(core: Core, vector: number[], projects: string[], minConfidence: number, k: number): Promise<Neighbour[]> {
  const passes = (m: Memory) => projects.includes(m.project_id) && RECALLABLE.includes(m.status) && m.confidence_score > minConfidence;
  const wide = await core.store.query(vector, undefined, Math.max(50, k * 10));
  const hits = wide.filter((n) => passes(n.memory)).slice(0, k);
  if (hits.length === k || wide.length < Math.max(50, k * 10)) return hits;
  return core.store.query(vector, buildWhere({ project_ids: projects, status: RECALLABLE, min_confidence: minConfidence }), k);
}
