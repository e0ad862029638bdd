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
 * A question in a language the embedding model was not trained on (Chinese for all-MiniLM-L6-v2) gives
 * the vector channel a small weight. The fused score is then reweighed for what no channel sees: a turn
 * that is itself a question is rarely the answer; a question about the current state ("now", "现在")
 * prefers newer candidates, so a changed value outranks the one it replaced; a question that asks when
 * prefers candidates with a resolved time; a question that names a time prefers what was said then. A turn whose memories the user marked wrong is not quoted.
 * An evidence turn is quoted with the turns of its exchange (context.ts: a question with its reply, a
 * statement with the follow-up question and its answer), and the excerpt cites every quoted message.
 * Memories come first, then evidence; a turn already cited by a recalled memory is not quoted again.
 *
 * Everything up to the choice of the k runs on ids and the facts the lexical index keeps of each memory
 * and turn (facts.ts: project, status, confidence, time, whether it asks): the vector channels return ids
 * and distances, the lexical hits come with their facts, and only the turns quoted with their exchange and
 * the k chosen are read from Chroma.
 */
import type { Core } from '../core';
import { embedQuery } from '../embed/queryCache';
import { InvalidInputError } from '../shared/errors';
import {
  GLOBAL_PROJECT,
  isTier,
  TIERS,
  tierOf,
  tierRank,
  type Episode,
  type Memory,
  type MemoryStatus,
  type Tier,
  type TimeSpan,
} from '../model';
import { redactText } from '../pipeline/redact';
import { resolveTimes, type ResolvedTime } from '../pipeline/when';
import type { RecallChannel, RecallItem, RecallParams, RecallResult } from '../protocol';
import type { EpisodeHit } from '../store/episodeStore';
import { type MemoryHit } from '../store/memoryStore';
import { buildWhere } from '../store/where';
import { clampInt, round } from '../util/numbers';
import { neighboursOf, readContext, readThreads, THREAD_ITEMS, type Excerpt } from './context';
import { entityOverlap, extractEntities } from './entities';
import { episodeAsMemory, formatBlock } from './format';
import {
  episodeFacts,
  memoryFacts,
  type EpisodeFacts,
  type MemoryFacts,
  type RankFacts,
} from '../store/lexical/facts';
import type { LexicalHit } from '../store/lexical/lexical';
import { nearMisses } from './nearMisses';
import {
  factsOfTurn,
  linkedOf,
  linksOf,
  threadsWithoutWithheld,
  withheldBy,
  type WithheldOptions,
} from './withheld';
import { cutText } from '../shared/text';

/** A recallable memory: not pending, wrong or archived. */
export const RECALLABLE: MemoryStatus[] = ['active', 'confirmed'];
const DAY_MS = 24 * 3600 * 1000;
/** How many memories naming an entity of the question the rule channel looks at (the best by BM25). */
const RULE_CANDIDATES = 100;
/** Reciprocal rank fusion's constant (Cormack et al.): 1 / (RRF_K + rank). */
const RRF_K = 60;
/** A vector candidate is kept when its similarity is within this of the best of its kind (or above the floor setting). */
const RELATIVE_SIMILARITY = 0.25;
/** Nothing under this cosine similarity is a match, whatever the best was. */
const ABSOLUTE_SIMILARITY = 0.05;
/** A lexical candidate is kept when its BM25 score is at least this share of the best. */
const RELATIVE_LEXICAL = 0.2;
/**
 * A turn that asks instead of tells ("which port is it on again?") shares the question's words but rarely
 * holds its answer: its fused score is scaled by this.
 */
const QUESTION_WEIGHT = 0.3;
/**
 * A turn that asks, quoted with the reply after it (context.ts), holds the answer when the reply does: its
 * fused score is scaled by this instead of {@link QUESTION_WEIGHT}. Still below 1: a question asked again
 * months later is often answered by a shrug or a restatement. On the eval subset 0.6 gained one temporal hit
 * over 0.3 and cost no R@10 (docs/recall-quality.md).
 */
const ANSWERED_QUESTION_WEIGHT = 0.6;
/**
 * Junk never fills a slot just because k is not reached (docs/design.md, "Trust: clean evidence"): a turn
 * nothing was learnt from (no memory cites it) is quoted only among the first this many items; below them
 * only memories and turns that carry content fill the k. On the eval set at k = 10, 6 kept R@10 at its
 * value and cut the junk share of quoted turns from 0.62 to 0.50 (docs/recall-quality.md).
 */
const UNLEARNT_TURN_RANK = 6;
/** How many of the best evidence candidates (times top k) are read with their context. */
const CONTEXT_CANDIDATES = 2;
/**
 * A question about the current state ("which port is it on now?", "现在用哪个端口？") wants the newest
 * value: the newest candidate gains this share of its fused score, the oldest nothing, linearly by rank of
 * time in between.
 */
const RECENCY_BOOST = 0.4;
/**
 * A question that asks when ("when did…", "什么时候", "哪天") wants a turn that says when: a candidate with
 * a resolved time (pipeline/when.ts: "four days ago", "上个月", a date) has its fused score multiplied by this.
 */
const HAS_TIME_BOOST = 2;
/**
 * A question that names a time ("for Christmas 2025", "in March 2025", "去年国庆") wants what was said or
 * happened then: a candidate said in that time, or quoting a turn whose resolved time falls in it, has its
 * fused score multiplied by this.
 */
const IN_PERIOD_BOOST = 2;
/** A day the question names is widened by this either side (pipeline/when.ts resolves "Christmas" to one day). */
const DAY_SLACK_MS = 7 * DAY_MS;
const ASKS_WHEN =
  /\bwhen\b|\bwhat (?:date|day|month|year)\b|\bwhich (?:day|month|year)\b|什么时候|哪天|哪一天|几号|几月|哪年|哪一年|何时/i;

/**
 * A candidate's fused score is scaled by its provenance tier (model.ts `Tier`): what a person vouched for
 * outranks what the conversation said, an agent's assertion and outside content rank lower.
 */
const TIER_WEIGHT: Record<Tier, number> = { person: 1.15, 'own-turn': 1, agent: 0.95, outside: 0.85 };

/**
 * The vector channel's weight in the fusion when the question is in a language the embedding model was
 * not trained on. all-MiniLM-L6-v2 on Chinese is close to noise (in the eval, dense over raw turns reaches
 * R@10 0.368 on the Chinese questions against BM25's 0.717), so there the lexical channel leads.
 */
const UNSEEN_LANGUAGE_VECTOR_WEIGHT = 0.2;
/** Embedding models trained on English only (the rest, e.g. the default multilingual MiniLM, see Chinese). */
const ENGLISH_ONLY_MODEL =
  /all-MiniLM-L\d+-v\d|all-mpnet-base|bge-(?:small|base|large)-en|e5-(?:small|base|large)-v2$/i;
const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;
const ASKS_FOR_NOW = /\b(?:now|these days|currently|today|still|anymore|latest)\b|现在|最近|目前|如今/i;

interface Candidate {
  kind: 'memory' | 'evidence';
  /** The memory's or the turn's id. */
  id: string;
  project: string;
  /** What it is ranked by (facts.ts): a memory's for a memory, a turn's for evidence. */
  facts: RankFacts;
  /** The memory, once read (a memory candidate). */
  memory?: Memory;
  /** The turn, once read (evidence). */
  episode?: Episode;
  /** Best cosine similarity (vector channel). */
  similarity?: number;
  /** Lexical score relative to the best (0..1). */
  lexical?: number;
  rule?: number;
  rrf: number;
  channels: Set<RecallChannel>;
  /** For evidence: the turns of its exchange it is quoted with (context.ts). */
  context?: Excerpt;
  /** The excerpt as read, before the choice of the k drops a quote that would repeat another. */
  excerpt?: Excerpt;
}

/** A memory or turn a channel found: its facts, and itself when it was read anyway. */
interface Found {
  id: string;
  project: string;
  facts: RankFacts;
  memory?: Memory;
  episode?: Episode;
}

/** What a recall asks, checked, with the settings' defaults filled in and the question redacted. */
interface Question {
  /** The question, cut and redacted. */
  query: string;
  topK: number;
  minConfidence: number;
  /** The rank of the lowest tier recalled (model.ts `tierRank`; 0: every tier). */
  tierFloor: number;
  minTier?: Tier;
  /** The caller's similarity floor; without it, one relative to the best of each kind. */
  minSimilarity?: number;
  /** The similarity setting a vector candidate above it is kept by, whatever the best was. */
  settingsMinSimilarity: number;
  /** Under this best memory similarity the rule channel runs. */
  weakSimilarity: number;
  budget: number;
  /** The workspace's projects (episodes never leave them). */
  own: string[];
  /** The workspace's projects and the global one (memories). */
  projects: string[];
  /** How many candidates each channel returns. */
  wide: number;
  /** Which turns are never quoted (withheld.ts). */
  withheld: WithheldOptions;
}

/**
 * The stages: the question checked ({@link questionOf}) → the channels ({@link gather}) → their fusion
 * ({@link fuse}) → the excerpts read, withheld turns dropped ({@link readExcerpts}) → reweighed and ordered
 * ({@link ranking}) → the k chosen and read ({@link choose}) → the items ({@link itemsOf}), cut to the token
 * budget; the kept memories' use marks are written behind the answer.
 */
export async function recall(core: Core, p: RecallParams): Promise<RecallResult> {
  const q = await questionOf(core, p);
  const { query, minConfidence, budget, projects } = q;
  const g = await gather(core, q);
  const { vector } = g;
  const { byKey, memFloor } = fuse(q, g);
  const read = await readExcerpts(core, q, g, byKey);
  const ranked = ranking(byKey, query, core.clock());
  const picked = await choose(core, q, ranked, byKey, read);
  const items = itemsOf(picked);
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
  if (!p.explain) return { items: kept, block, tokens };
  const near_misses = await nearMisses(core, {
    vector,
    projects,
    minConfidence,
    recallable: RECALLABLE,
    floor: memFloor,
    candidates: new Set([...byKey.values()].filter((c) => c.kind === 'memory').map((c) => c.id)),
    picked: new Set(picked.map((c) => c.id)),
    kept: new Set(kept.map((i) => i.memory.id)),
  });
  return { items: kept, block, tokens, near_misses };
}

/** What the channels found, each over its ids and facts (the few hits read anyway come read). */
interface Gathered {
  /** The question's embedding. */
  vector: number[];
  /** Vector channel: the nearest recallable memories, best first. */
  memVec: MemoryHit[];
  /** Vector channel: the nearest turns of the workspace's projects, best first. */
  epVec: EpisodeHit[];
  /** Lexical channel: the hits within {@link RELATIVE_LEXICAL} of the best, best first. */
  lex: { score: number; found: Found }[];
  /** The embedding model's id once the channels answered (an English-only one blurs Chinese). */
  modelId: string;
  /** Rule channel: the entities of the question (empty when the channel did not run). */
  entities: string[];
  /** Rule channel: the recent troubleshooting logs naming one of them (empty when it did not run). */
  logs: Memory[];
}

/**
 * The channels, in the order they read: the lexical one starts while the question is embedded, the vector
 * ones over memories and turns then run beside it; the rule channel runs after them, and only when no
 * memory of the allowed tiers is a strong vector match.
 */
async function gather(core: Core, q: Question): Promise<Gathered> {
  const { query, projects, own, wide, minConfidence } = q;
  // The lexical channel needs no vector: it runs (and reads its hits back) while the question is embedded.
  const lexical = lexicalCandidates(core, query, projects, wide);
  lexical.catch(() => undefined); // awaited below; a failure must not go unhandled meanwhile
  await core.requireModel();
  const vector = await embedQuery(core.embedding, query);
  const [memVec, epVec, lex] = await Promise.all([
    nearestRecallable(core, vector, projects, minConfidence, wide),
    core.config.episodes.keep ? core.episodes.query(vector, own, wide) : Promise.resolve<EpisodeHit[]>([]),
    lexical,
  ]);
  const modelId = core.embedding.modelId;
  // rule: recent troubleshooting logs sharing an entity, when no memory is a strong vector match
  const best = memVec.find((n) => tierRank(n.facts.tier) >= q.tierFloor);
  let entities: string[] = [];
  let logs: Memory[] = [];
  if ((best ? 1 - best.distance : 0) < q.weakSimilarity) {
    entities = extractEntities(query);
    if (entities.length > 0) {
      const since = new Date(core.clock().getTime() - 7 * DAY_MS).toISOString();
      logs = await recentLogsNaming(core, entities, own, since);
    }
  }
  return { vector, memVec, epVec, lex, modelId, entities, logs };
}

/** The candidates the channels found, by id, and the similarity floor the memories were cut at. */
interface Fused {
  byKey: Map<string, Candidate>;
  /** The vector channel's floor for memories (the near misses of `explain` are under it). */
  memFloor: number;
}

/**
 * The channels' ranked lists fused by reciprocal rank fusion, each cut first: a vector candidate relative to
 * the best of its kind, a lexical one to what may be recalled; in the order vector (memories, then turns),
 * lexical, rule, which is the order of the candidates and of their ties.
 */
function fuse(q: Question, g: Gathered): Fused {
  const { query, minConfidence, tierFloor, own, projects } = q;
  const { memVec, epVec, lex } = g;
  const recallable = (project: string, f: MemoryFacts) =>
    projects.includes(project) &&
    RECALLABLE.includes(f.status) &&
    f.confidence > minConfidence &&
    tierRank(f.tier) >= tierFloor;
  const byKey = new Map<string, Candidate>();
  const vectorWeight =
    CJK.test(query) && ENGLISH_ONLY_MODEL.test(g.modelId) ? UNSEEN_LANGUAGE_VECTOR_WEIGHT : 1;
  const add = (c: Omit<Candidate, 'rrf' | 'channels'>, channel: RecallChannel, rank: number) => {
    const rrf = (channel === 'vector' ? vectorWeight : 1) / (RRF_K + rank);
    const cur = byKey.get(c.id);
    if (cur) {
      cur.similarity = c.similarity ?? cur.similarity;
      cur.lexical = c.lexical ?? cur.lexical;
      cur.rule = c.rule ?? cur.rule;
      cur.memory ??= c.memory;
      cur.episode ??= c.episode;
      cur.rrf += rrf;
      cur.channels.add(channel);
    } else {
      byKey.set(c.id, { ...c, rrf, channels: new Set([channel]) });
    }
  };
  const floor = (best: number) =>
    q.minSimilarity ??
    Math.max(ABSOLUTE_SIMILARITY, Math.min(q.settingsMinSimilarity, best - RELATIVE_SIMILARITY));

  // vector, memories and episodes ranked separately (each kind has its own best)
  const memSims = memVec
    .filter((n) => tierRank(n.facts.tier) >= tierFloor)
    .map((n) => ({ n, sim: 1 - n.distance }));
  const memFloor = floor(memSims[0]?.sim ?? 0);
  memSims
    .filter((x) => x.sim >= memFloor)
    .forEach(({ n, sim }, i) =>
      add(
        {
          kind: 'memory',
          id: n.id,
          project: n.project,
          facts: n.facts,
          memory: n.memory,
          similarity: round(sim),
        },
        'vector',
        i + 1,
      ),
    );
  const epSims = epVec.map((n) => ({ n, sim: 1 - n.distance }));
  const epFloor = floor(epSims[0]?.sim ?? 0);
  epSims
    .filter((x) => x.sim >= epFloor)
    .forEach(({ n, sim }, i) =>
      add(
        {
          kind: 'evidence',
          id: n.id,
          project: n.project,
          facts: n.facts,
          episode: n.episode,
          similarity: round(sim),
        },
        'vector',
        i + 1,
      ),
    );

  // lexical: keep only what may be recalled
  const bestLex = lex[0]?.score ?? 0;
  lex.forEach((h, i) => {
    const rel = bestLex > 0 ? round(h.score / bestLex) : 0;
    const { found } = h;
    if (found.facts.kind === 'memory') {
      if (recallable(found.project, found.facts))
        add({ kind: 'memory', ...found, lexical: rel }, 'lexical', i + 1);
    } else if (own.includes(found.project))
      add({ kind: 'evidence', ...found, lexical: rel }, 'lexical', i + 1);
  });

  // rule: recent troubleshooting logs sharing an entity, when no memory is a strong vector match
  ruleRanked(g, tierFloor).forEach((x, i) =>
    add(
      {
        kind: 'memory',
        id: x.memory.id,
        project: x.memory.project_id,
        facts: memoryFacts(x.memory),
        memory: x.memory,
        rule: round(x.overlap),
      },
      'rule',
      i + 1,
    ),
  );

  return { byKey, memFloor };
}

/** The rule channel's logs of the allowed tiers that name an entity of the question, most overlap (times confidence) first. */
function ruleRanked(g: Gathered, tierFloor: number): { memory: Memory; overlap: number }[] {
  const { entities } = g;
  return g.logs
    .filter((memory) => tierRank(tierOf(memory)) >= tierFloor)
    .map((memory) => ({ memory, overlap: entityOverlap(entities, memory.text) }))
    .filter((x) => x.overlap > 0)
    .sort((a, b) => b.overlap * b.memory.confidence_score - a.overlap * a.memory.confidence_score);
}

/**
 * Reads what the choice needs ahead of it and drops the withheld turns: the best evidence candidates
 * with the turns their links name and then their exchanges (a turn deleted meanwhile is no candidate; an
 * exchange reaching outside the workspace's projects is not quoted), the best memory candidates meanwhile.
 * Changes the candidates of `byKey` in place; returns the turns read by id (the threads read on from them).
 */
async function readExcerpts(
  core: Core,
  q: Question,
  g: Gathered,
  byKey: Map<string, Candidate>,
): Promise<Map<string, Episode>> {
  const { topK, own } = q;
  // The best evidence candidates are quoted with the turn that answers them or that they answer: they are
  // read with the turns their links name (one read), then their exchanges. The best memory candidates are
  // read meanwhile, so the choice of the k seldom waits for another read.
  const byRrf = [...byKey.values()].sort((a, b) => b.rrf - a.rrf);
  const contextFor = byRrf.filter((c) => c.kind === 'evidence').slice(0, topK * CONTEXT_CANDIDATES);
  const links = contextFor.flatMap((c) => {
    const f = c.facts as EpisodeFacts;
    return [c.episode ? '' : c.id, f.next_id ?? '', f.previous_id ?? ''];
  });
  const memoriesAhead = byRrf
    .filter((c) => c.kind === 'memory' && !c.memory)
    .slice(0, topK * CONTEXT_CANDIDATES);
  const [turnsRead, memoriesRead] = await Promise.all([
    core.episodes.get([...new Set(links.filter(Boolean))]),
    core.store.get(memoriesAhead.map((c) => c.id)),
  ]);
  const read = new Map(turnsRead.map((e) => [e.id, e]));
  const readMemory = new Map(memoriesRead.map((m) => [m.id, m]));
  for (const c of memoriesAhead) c.memory = readMemory.get(c.id); // one deleted meanwhile is read again, and dropped, by the choice
  for (const c of contextFor) c.episode ??= read.get(c.id);
  const quoted = contextFor.filter((c) => c.episode); // a turn deleted meanwhile is no candidate
  for (const c of contextFor) if (!c.episode) byKey.delete(c.id);
  const excerpts = await readContext(
    core,
    quoted.map((c) => c.episode!),
    [...read.values()],
  );
  for (const c of quoted) {
    const x = excerpts.get(c.id);
    if (x && neighboursOf(x).every((n) => own.includes(n.project_id))) c.context = c.excerpt = x;
  }
  await dropWithheld(core, byKey, [...g.memVec, ...g.lex.map((h) => h.found)], q.withheld);
  return read;
}

/**
 * The picked that could be read as the answer's items: a turn as a memory it is worded like (with the
 * turns it is quoted with), scored by its best channel's own score, its channels in a fixed order.
 */
function itemsOf(picked: Candidate[]): RecallItem[] {
  return picked
    .filter((c) => c.memory || c.episode)
    .map((c): RecallItem => {
      const channels = (['vector', 'lexical', 'rule'] as const).filter((ch) => c.channels.has(ch));
      const turns = c.context?.turns;
      const memory = c.kind === 'evidence' ? episodeAsMemory(c.episode!, turns) : c.memory!;
      return {
        kind: c.kind,
        memory,
        ...(c.episode ? { episode: c.episode } : {}),
        ...(turns ? { turns } : {}),
        score: c.similarity ?? c.lexical ?? c.rule ?? 0,
        channel: channels[0]!,
        channels,
        source_ref: memory.source_ref,
      };
    });
}

/** The recall's parameters checked (in this order) and completed from the settings; the question redacted. */
async function questionOf(core: Core, p: RecallParams): Promise<Question> {
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
  if (p.min_tier !== undefined && !isTier(p.min_tier))
    throw new InvalidInputError(`Unknown tier "${String(p.min_tier)}"; one of ${TIERS.join(', ')}.`);
  const tierFloor = p.min_tier ? tierRank(p.min_tier) : 0;
  const budget = p.token_budget ?? settings.tokenBudget;
  const own = [...new Set(p.project_ids)].filter((x) => x !== GLOBAL_PROJECT);
  const projects = [...own, GLOBAL_PROJECT];
  const { text: query } = await redactText(cutText(p.query, 2000)); // a query, not content: its start is enough
  return {
    query,
    topK,
    minConfidence,
    tierFloor,
    ...(p.min_tier ? { minTier: p.min_tier } : {}),
    ...(p.min_similarity !== undefined ? { minSimilarity: p.min_similarity } : {}),
    settingsMinSimilarity: settings.minSimilarity,
    weakSimilarity: settings.weakSimilarity,
    budget,
    own,
    projects,
    wide: Math.max(20, topK * 4),
    withheld: { minConfidence, query, ...(p.min_tier ? { minTier: p.min_tier } : {}) },
  };
}

/**
 * The best k of both kinds in fused order; a turn a chosen memory already cites is not quoted again.
 * Then the chosen are read; one deleted since the channels found it makes room for the next. The best
 * of them are then quoted with how their exchange went on (a second choice, with their threads).
 * Changes the candidates (and `byKey`) in place; returns the picked in the order they are answered with.
 */
async function choose(
  core: Core,
  q: Question,
  ranked: Candidate[],
  byKey: Map<string, Candidate>,
  read: Map<string, Episode>,
): Promise<Candidate[]> {
  const { topK } = q;
  let picked = await pickAndRead(core, ranked, byKey, topK);
  const threads = await readThreads(core, threadAnchors(picked, ranked), [...read.values()]);
  if (threads.size > 0) {
    // a thread stops before a turn a chosen memory says already
    const told = new Set(
      picked
        .filter((c) => c.kind === 'memory')
        .flatMap((c) => (c.facts as MemoryFacts).source_ref.map((r) => citeKey(c.project, r))),
    );
    picked = await pickAndRead(
      core,
      ranked,
      byKey,
      topK,
      await threadsWithoutWithheld(core, threads, q.withheld),
      told,
    );
  }
  return picked;
}

/** A thread's turns up to the first one already cited (the rest of the exchange is quoted elsewhere). */
function takeUncited(thread: Episode[] | undefined, cited: (e: Episode) => boolean): Episode[] {
  const out: Episode[] = [];
  for (const e of thread ?? []) {
    if (cited(e)) break;
    out.push(e);
  }
  return out;
}

/**
 * The turn a memory came from, when the channels found it too and it was read (the best evidence
 * candidates are): a memory's turn no channel found is not the place to read on.
 */
function sourceTurn(memory: Candidate, ranked: Candidate[]): Episode | undefined {
  const refs = new Set((memory.facts as MemoryFacts).source_ref.filter((r) => r.startsWith('msg:')));
  return ranked.find(
    (c) =>
      c.kind === 'evidence' &&
      c.episode &&
      c.project === memory.project &&
      refs.has(`msg:${(c.facts as EpisodeFacts).message_id}`),
  )?.episode;
}

/** The turns after which the best {@link THREAD_ITEMS} picks go on: the last turn of an excerpt, or a memory's turn. */
function threadAnchors(picked: Candidate[], ranked: Candidate[]): Episode[] {
  return picked
    .map((c) => (c.kind === 'memory' ? sourceTurn(c, ranked) : (c.context?.turns.at(-1) ?? c.episode)))
    .filter((e): e is Episode => !!e)
    .slice(0, THREAD_ITEMS);
}

const citeKey = (project: string, ref: string) => `${project}\u0000${ref}`;

/**
 * The best k of the fused candidates, in fused order, read from the store ({@link pick}, {@link hydrate});
 * one deleted since the channels found it makes room for the next.
 */
async function pickAndRead(
  core: Core,
  ranked: Candidate[],
  byKey: Map<string, Candidate>,
  topK: number,
  threads?: Map<string, Episode[]>,
  told?: Set<string>,
): Promise<Candidate[]> {
  let picked: Candidate[] = [];
  for (let attempt = 0; ; attempt++) {
    picked = pick(
      ranked.filter((c) => byKey.has(c.id)),
      topK,
      threads,
      told,
    );
    const gone = await hydrate(core, picked);
    if (!gone.length || attempt >= 3) break;
    for (const id of gone) byKey.delete(id);
  }
  return picked;
}

/**
 * The best k of the fused candidates, in fused order: a turn a chosen memory (or an earlier quote) already
 * cites is not quoted again, and a neighbour already quoted is not quoted twice (the turn stands alone).
 * With `threads` (the turns said after a candidate's last turn, by that turn's id): an excerpt goes on with
 * its thread, and a memory is followed by the thread of the turn it came from (an item of its own, kind
 * evidence, that counts towards k); a thread ends before a turn already quoted or `told` (cited by a memory
 * of the first choice).
 */
function pick(
  ranked: Candidate[],
  topK: number,
  threads = new Map<string, Episode[]>(),
  told = new Set<string>(),
): Candidate[] {
  const picked: Candidate[] = [];
  const cited = new Set<string>();
  const key = (e: Episode) => citeKey(e.project_id, `msg:${e.message_id}`);
  const endsThread = (e: Episode) => cited.has(key(e)) || told.has(key(e));
  for (const c of ranked) {
    if (picked.length >= topK) break;
    c.context = c.excerpt;
    if (c.kind === 'evidence') {
      const f = c.facts as EpisodeFacts;
      if (cited.has(citeKey(c.project, `msg:${f.message_id}`))) continue;
      if (!f.memory_ids.length && picked.length >= UNLEARNT_TURN_RANK) continue;
      if (
        c.context &&
        neighboursOf(c.context).some((n) => cited.has(citeKey(c.project, `msg:${n.message_id}`)))
      )
        delete c.context;
      const last = c.context?.turns.at(-1) ?? c.episode;
      const more = last ? takeUncited(threads.get(last.id), endsThread) : [];
      if (more.length)
        c.context = { turn: c.episode!, turns: [...(c.context?.turns ?? [c.episode!]), ...more] };
      picked.push(c);
      for (const t of c.context?.turns ?? []) cited.add(key(t));
      cited.add(citeKey(c.project, `msg:${f.message_id}`));
      continue;
    }
    // Evidence never repeats a chosen memory: an excerpt chosen before it that quotes nothing but what the
    // chosen memories came from gives up its place, wherever it ranked (one that also quotes the rest of
    // the exchange, the question a memory answers, stays: the exchange is what it adds).
    for (const r of (c.facts as MemoryFacts).source_ref) told.add(citeKey(c.project, r));
    for (let j = picked.length - 1; j >= 0; j--) {
      const e = picked[j]!;
      if (
        e.kind === 'evidence' &&
        e.episode &&
        (e.context?.turns ?? [e.episode]).every((t) => told.has(key(t)))
      )
        picked.splice(j, 1);
    }
    picked.push(c);
    for (const r of (c.facts as MemoryFacts).source_ref) cited.add(citeKey(c.project, r));
    const from = sourceTurn(c, ranked);
    const more = from ? takeUncited(threads.get(from.id), endsThread) : [];
    if (
      more.length &&
      picked.length < topK &&
      (picked.length < UNLEARNT_TURN_RANK || more[0]!.memory_ids.length)
    ) {
      const first = more[0]!;
      const excerpt = { turn: first, turns: more };
      picked.push({
        kind: 'evidence',
        id: first.id,
        project: first.project_id,
        facts: episodeFacts(first),
        episode: first,
        context: excerpt,
        excerpt,
        similarity: c.similarity,
        lexical: c.lexical,
        rule: c.rule,
        rrf: c.rrf,
        channels: new Set(c.channels),
      });
      more.forEach((t) => cited.add(key(t)));
    }
  }
  return picked;
}

/**
 * Reads the chosen memories and turns not read yet (one read each); returns the ids Chroma no longer has
 * (deleted since the channels found them).
 */
async function hydrate(core: Core, picked: Candidate[]): Promise<string[]> {
  const memories = picked.filter((c) => c.kind === 'memory' && !c.memory);
  const turns = picked.filter((c) => c.kind === 'evidence' && !c.episode);
  const [ms, es] = await Promise.all([
    core.store.get(memories.map((c) => c.id)),
    core.episodes.get(turns.map((c) => c.id)),
  ]);
  const byId = new Map<string, Memory | Episode>([...ms, ...es].map((x) => [x.id, x]));
  const gone: string[] = [];
  for (const c of [...memories, ...turns]) {
    const x = byId.get(c.id);
    if (!x) gone.push(c.id);
    else if (c.kind === 'memory') c.memory = x as Memory;
    else c.episode = x as Episode;
  }
  return gone;
}

/**
 * Evidence recall does not quote (withheld.ts): a withheld turn is no candidate, and a withheld neighbour
 * drops the excerpt's context (the turn is quoted alone). A turn without derived memories, or whose
 * memories are superseded, is untouched: a superseded memory's turn still says what was true then, and
 * demoting it cost recall in the eval (docs/recall-quality.md).
 */
async function dropWithheld(
  core: Core,
  byKey: Map<string, Candidate>,
  known: Found[],
  o: WithheldOptions,
): Promise<void> {
  const evidence = [...byKey.values()].filter((c) => c.kind === 'evidence');
  const factsOf = (c: Candidate): EpisodeFacts[] =>
    c.context ? c.context.turns.map(factsOfTurn) : [c.facts as EpisodeFacts];
  const all = evidence.flatMap(factsOf);
  const withheld = withheldBy(await linkedOf(core, linksOf(all), known), o);
  for (const c of evidence) {
    if (withheld(c.episode ? factsOfTurn(c.episode) : (c.facts as EpisodeFacts))) byKey.delete(c.id);
    else if (c.context && neighboursOf(c.context).some((n) => withheld(factsOfTurn(n)))) {
      delete c.context;
      delete c.excerpt;
    }
  }
}

/**
 * The candidates reweighed ({@link reweigh}, in place) and in the order the choice goes down: best fused score
 * first, a tie to the more similar, then as fused (the sort is stable).
 */
function ranking(byKey: Map<string, Candidate>, query: string, asked: Date): Candidate[] {
  return reweigh([...byKey.values()], query, asked).sort(
    (a, b) => b.rrf - a.rrf || (b.similarity ?? 0) - (a.similarity ?? 0),
  );
}

/** What {@link reweigh} reads and changes of a fused candidate. */
export type Reweighable = Pick<Candidate, 'facts' | 'rrf' | 'context'>;

/**
 * Adjusts the fused scores for what the channels cannot see: a candidate that is itself a question is
 * rarely the answer, a question about the current state prefers the newer of its candidates, and a question
 * that asks when prefers candidates that say when.
 */
export function reweigh<C extends Reweighable>(candidates: C[], query: string, asked = new Date()): C[] {
  const now = ASKS_FOR_NOW.test(query);
  const askWhen = ASKS_WHEN.test(query);
  const periods = resolveTimes(query, asked).map(periodOf);
  const inPeriod = (c: C) =>
    periods.some(
      ([from, to]) =>
        within(Date.parse(c.facts.when), from, to) ||
        (c.context?.turns ?? []).some((t) => t.times.some((x) => overlaps(x, from, to))),
    );
  const times = now ? [...new Set(candidates.map((c) => c.facts.when))].sort() : [];
  const position = new Map(times.map((t, i) => [t, times.length > 1 ? i / (times.length - 1) : 1]));
  for (const c of candidates) {
    c.rrf *= TIER_WEIGHT[c.facts.tier];
    if (c.facts.asks) c.rrf *= c.context ? ANSWERED_QUESTION_WEIGHT : QUESTION_WEIGHT;
    if (now) c.rrf *= 1 + RECENCY_BOOST * (position.get(c.facts.when) ?? 0);
    const timed = c.context ? c.context.turns.some((t) => t.times.length > 0) : c.facts.timed;
    if (askWhen && timed) c.rrf *= HAS_TIME_BOOST;
    if (periods.length && inPeriod(c)) c.rrf *= IN_PERIOD_BOOST;
  }
  return candidates;
}

/**
 * The days a question's time covers, as epoch ms: a day (a holiday, a date) widened by
 * {@link DAY_SLACK_MS} either side, since what happened then is often told days later ("got me an espresso
 * machine for Christmas", said on the 29th); a week, month, season or year as it is.
 */
function periodOf(t: ResolvedTime): [number, number] {
  const from = Date.parse(`${t.start}T00:00:00.000Z`);
  const to = Date.parse(`${t.end}T00:00:00.000Z`) + DAY_MS - 1;
  return t.granularity === 'day' ? [from - DAY_SLACK_MS, to + DAY_SLACK_MS] : [from, to];
}
const within = (ms: number, from: number, to: number) => ms >= from && ms <= to;
const overlaps = (x: TimeSpan, from: number, to: number) =>
  Date.parse(`${x.start}T00:00:00.000Z`) <= to && Date.parse(`${x.end}T00:00:00.000Z`) + DAY_MS - 1 >= from;

/**
 * The lexical channel's hits within {@link RELATIVE_LEXICAL} of the best, each with its facts from the
 * index (facts.ts); a hit the index has no facts of (an older index) is read from Chroma.
 */
async function lexicalCandidates(
  core: Core,
  query: string,
  projects: string[],
  wide: number,
): Promise<{ score: number; found: Found }[]> {
  const all =
    (await core.store.lexical.index?.run(
      'search',
      (ix) => ix.search(query, { projects, limit: wide * 2 }),
      [] as LexicalHit[],
    )) ?? [];
  const best = all[0]?.score ?? 0;
  const hits = all.filter((h) => h.score >= best * RELATIVE_LEXICAL);
  const unknown = (kind: LexicalHit['kind']) =>
    hits.filter((h) => h.kind === kind && h.facts?.kind !== kind).map((h) => h.id);
  const [memories, episodes] = await Promise.all([
    core.store.get(unknown('memory')),
    core.config.episodes.keep ? core.episodes.get(unknown('episode')) : Promise.resolve<Episode[]>([]),
  ]);
  const read = new Map<string, Found>([
    ...memories.map((m): [string, Found] => [
      m.id,
      { id: m.id, project: m.project_id, facts: memoryFacts(m), memory: m },
    ]),
    ...episodes.map((e): [string, Found] => [
      e.id,
      { id: e.id, project: e.project_id, facts: episodeFacts(e), episode: e },
    ]),
  ]);
  const out: { score: number; found: Found }[] = [];
  for (const h of hits) {
    if (h.kind === 'episode' && !core.config.episodes.keep) continue;
    const found =
      h.facts?.kind === h.kind ? { id: h.id, project: h.project, facts: h.facts } : read.get(h.id); // else gone
    if (found) out.push({ score: h.score, found });
  }
  return out;
}

/**
 * The recallable troubleshooting logs of these projects stored since a time that may name one of the
 * entities: the memories whose words hold them, found through the lexical index and read back by id
 * (their source and time checked here). Chroma's `where` on the source, status and time scanned every row
 * of the collection: 7–17 s at 100k memories on the 2-core Intel machine (docs/benchmarks.md). Without the
 * lexical index, that query it is.
 */
async function recentLogsNaming(
  core: Core,
  entities: string[],
  projects: string[],
  since: string,
): Promise<Memory[]> {
  const hits = await core.store.lexical.index?.run(
    'search',
    (ix) => ix.search(entities.join(' '), { projects, kinds: ['memory'], limit: RULE_CANDIDATES }),
    undefined,
  );
  if (!hits) {
    const where = buildWhere({
      project_ids: projects,
      source_type: 'troubleshooting_log',
      status: RECALLABLE,
      since,
    });
    return (await core.store.find(where)).map((x) => x.memory);
  }
  // facts.when is when it happened; "recent" is when it was stored, checked on the memory itself
  const maybe = hits.filter((h) => h.facts?.kind !== 'memory' || RECALLABLE.includes(h.facts.status));
  return (await core.store.get(maybe.map((h) => h.id))).filter(
    (m) =>
      m.source_type === 'troubleshooting_log' &&
      RECALLABLE.includes(m.status) &&
      m.created_at >= since &&
      projects.includes(m.project_id),
  );
}

/**
 * The top-k recallable memories of these projects nearest to a vector, through the store's planner
 * (store/nearest.ts): status and confidence are checked here, the project here or in Chroma depending on
 * its share of the store, and Chroma's fully filtered query runs only when nothing else finds k.
 */
function nearestRecallable(
  core: Core,
  vector: number[],
  projects: string[],
  minConfidence: number,
  k: number,
): Promise<MemoryHit[]> {
  return core.store.nearest(vector, projects, k, { status: RECALLABLE, min_confidence: minConfidence });
}
