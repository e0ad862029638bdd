/**
 * The recall eval (`npm run eval`): the labelled set in eval/data/ through the product over JSON-RPC, and in
 * the same run the raw-turn baselines, on the same turns. See docs/recall-quality.md for the method and how
 * to read the numbers.
 *
 *   npm run eval                                   # every conversation, k = 10
 *   npm run eval -- --only en-01-payments-sre,zh-03-plc-commissioning --k 5
 *
 * Spawns the real sidecar (dist/sidecar.js, rebuilt when older than the sources) with its real Chroma server
 * in a temporary data folder and the real all-MiniLM-L6-v2 weights from $MNEMO_TEST_MODEL_DIR (default
 * .cache/models; fetched with scripts/fetch-model.sh when absent). Each conversation is one project: every
 * session goes through `mnemo/ingest/session`, every question through `mnemo/memory/recall` (top_k = k,
 * product defaults otherwise, mark_used false so questions do not change each other's state). A hit is a
 * recalled item whose `source_ref` holds `msg:<id>` of an evidence turn. Prints the table and writes
 * eval/results/<UTC time>.json.
 *
 * The held-out split (eval/heldout, issue 37: written by hand from scenario briefs, never tuned on) goes
 * through a second sidecar and is reported apart, with the sha256 of its files. For both splits the
 * baselines are also scored at equal turns: per question, as many raw turns as Mnemo's answer cited.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { LocalEmbeddingProvider } from '../sidecar/embed/index';
import { estimateTokens } from '../sidecar/llm/vscodeLm';
import { IngestRequest, RecallRequest, type IngestReport, type RecallResult } from '../sidecar/protocol';
import {
  cleanupDataDir,
  SidecarSession,
  SIDECAR_JS,
  TEST_MODEL,
  tempDataDir,
  testConfig,
  testModelPath,
} from '../test/support/sidecarSession';
import { Bm25Index, DenseIndex, reciprocalRankFusion, type Turn } from './lib/baselines';
import {
  CATEGORIES,
  checkDataset,
  describeDataset,
  hashSplit,
  HELDOUT_DIR,
  loadDataset,
  type Conversation,
  type Question,
} from './lib/dataset';
import { percentile, scoreSystem, type Answer, type SystemScores } from './lib/metrics';
import { ensureModel } from './lib/model';
import { scoreRulesSet } from './lib/rulesSet';
import { HELD_OUT_TURNS, LABELLED_TURNS } from '../test/fixtures/rules/labelled';

const REPO = path.resolve(__dirname, '..');
interface Options {
  only?: string;
  k: number;
  show: Set<string>;
  /** The recall's token budget (default: the product's). */
  budget?: number;
}
function options(): Options {
  let values: { only?: string; k?: string; show?: string; budget?: string };
  try {
    ({ values } = parseArgs({
      options: {
        only: { type: 'string' },
        k: { type: 'string', default: '10' },
        show: { type: 'string' },
        budget: { type: 'string' },
      },
    }));
  } catch (e) {
    throw new Error(
      `${e instanceof Error ? e.message : String(e)} Usage: npm run eval -- [--only <conversation ids, comma-separated>] [--k <1-50>] [--show <question ids, comma-separated>] [--budget <tokens>]`,
    );
  }
  const k = Number(values.k);
  if (!Number.isInteger(k) || k < 1 || k > 50)
    throw new Error(`--k must be a whole number from 1 to 50, got "${values.k}".`);
  const budget = values.budget === undefined ? undefined : Number(values.budget);
  if (budget !== undefined && (!Number.isInteger(budget) || budget < 50))
    throw new Error(`--budget must be a whole number of tokens, at least 50, got "${values.budget}".`);
  const show = new Set((values.show ?? '').split(',').filter(Boolean));
  return { only: values.only, k, show, ...(budget ? { budget } : {}) };
}
let args: Options;
let K = 10;
/** Candidates each baseline ranks before fusion. */
const FUSION_DEPTH = 100;

const log = (line: string): void => void process.stderr.write(`${line}\n`);
const ms = (t0: number): number => Math.round(performance.now() - t0);
const round = (x: number, d = 3): number => Math.round(x * 10 ** d) / 10 ** d;

// ------------------------------------------------------------------ preparation

function newestMtime(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return t;
}

/** Rebuilds dist/ when a sidecar source is newer than the bundle (the eval runs the built sidecar). */
function ensureBuild(): void {
  const bundles = ['sidecar.js', 'embedWorker.js', 'lexicalWorker.js'].map((f) => path.join(REPO, 'dist', f));
  const built = Math.min(...bundles.map((f) => (existsSync(f) ? statSync(f).mtimeMs : 0)));
  if (
    built >=
    Math.max(newestMtime(path.join(REPO, 'sidecar')), statSync(path.join(REPO, 'package.json')).mtimeMs)
  )
    return;
  log('dist/ is older than sidecar/: building');
  execFileSync(process.execPath, [path.join(REPO, 'esbuild.mjs')], {
    cwd: REPO,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

function turnsOf(c: Conversation): Turn[] {
  return c.sessions.flatMap((s) =>
    s.messages.map((m) => ({ id: m.id!, text: `${m.name ?? m.role}: ${m.content}` })),
  );
}

const msgIds = (refs: string[] | undefined): string[] =>
  (refs ?? []).filter((r) => r.startsWith('msg:')).map((r) => r.slice(4));

// ------------------------------------------------------------------ Mnemo through JSON-RPC

interface IngestStats {
  turns: number;
  fact_turns: number;
  /** New memories (active + pending review). */
  stored: number;
  pending: number;
  refreshed: number;
  dropped: number;
  /** New memories none of whose source turns is labelled fact. */
  junk_stored: number;
  /** The same, by the rule that kept the memory (the first `rule:` of its reason). */
  junk_stored_by_rule: Record<string, number>;
  /** New memories by the rule that kept them. */
  stored_by_rule: Record<string, number>;
  /** Fact turns cited by a stored, pending or refreshed memory. */
  fact_turns_kept: number;
  /** Evidence turns cited by a stored, pending or refreshed memory (the ceiling of Mnemo's recall). */
  evidence_turns: number;
  evidence_turns_kept: number;
  /** Why evidence turns that no memory cites were dropped (matched by sentence text), by rule. */
  evidence_dropped_by: Record<string, number>;
  session_ms: number[];
  errors: string[];
  /** Evidence items (quoted turns) recalled within k, and those none of whose quoted turns is labelled fact. */
  evidence_recalled: number;
  evidence_junk: number;
  /** Evidence items whose quoted turn the rules dropped as venting, small talk or a hedge. */
  evidence_rules_junk: number;
  /** What a reader needs to see why: stored memories from junk turns, evidence turns no memory cites, junk quoted as evidence. */
  examples: {
    junk_stored: string[];
    evidence_dropped: { id: string; text: string; reason: string }[];
    junk_evidence: { question: string; text: string; dropped_as?: string }[];
  };
}

/** Drop reasons that mark a turn as junk by the rules' own classes (docs/design.md: never quoted back). */
const RULES_JUNK = /^drop:(venting|small-talk|hedge|status-chatter|passing)/;

/** What the results file keeps of each recalled item: enough to see why it was recalled, and its labels. */
interface RecalledItem {
  kind: 'memory' | 'evidence';
  score: number;
  channels: string[];
  tier?: string;
  /** `<message id>:<label>` of every turn it cites. */
  cites: string[];
  linked?: number;
  chatter?: string;
  chars?: number;
  asks?: boolean;
}

async function runMnemo(convs: Conversation[]): Promise<{
  answers: Answer[];
  latencies: number[];
  ingest: IngestStats;
  returned: number[];
  recalled: Map<string, RecalledItem[]>;
  /** Per question: the estimated tokens of the recall's injection block (`RecallResult.tokens`). */
  tokens: Map<string, number>;
}> {
  const dataDir = tempDataDir('mnemo-eval-');
  const recalled = new Map<string, RecalledItem[]>();
  const tokens = new Map<string, number>();
  const ingest: IngestStats = {
    turns: 0,
    fact_turns: 0,
    stored: 0,
    pending: 0,
    refreshed: 0,
    dropped: 0,
    junk_stored: 0,
    junk_stored_by_rule: {},
    stored_by_rule: {},
    fact_turns_kept: 0,
    evidence_turns: 0,
    evidence_turns_kept: 0,
    evidence_dropped_by: {},
    session_ms: [],
    errors: [],
    evidence_recalled: 0,
    evidence_junk: 0,
    evidence_rules_junk: 0,
    examples: { junk_stored: [], evidence_dropped: [], junk_evidence: [] },
  };
  const answers: Answer[] = [];
  const latencies: number[] = [];
  const returned: number[] = [];
  let s: SidecarSession | undefined;
  try {
    log(`Starting the sidecar (data in ${dataDir})`);
    s = await SidecarSession.start(testConfig(dataDir));
    const started = s;
    // The first recall waits for Chroma and the model; it is not a question, so it is not timed.
    await started.waitFor(
      'the sidecar to answer a recall',
      async () =>
        (await started.request(RecallRequest, {
          query: 'warm-up',
          project_ids: ['eval-warmup'],
          mark_used: false,
        })) !== undefined,
      180_000,
    );
    for (const [ci, c] of convs.entries()) {
      const t0 = performance.now();
      const cited = new Set<string>();
      const reports: IngestReport[] = [];
      for (const session of c.sessions) {
        const ts = performance.now();
        try {
          reports.push(await started.request(IngestRequest, { ...session, explain: true }));
        } catch (e) {
          ingest.errors.push(`${session.session_id}: ${e instanceof Error ? e.message : String(e)}`);
        }
        ingest.session_ms.push(ms(ts));
      }
      const turns = c.sessions.flatMap((x) => x.messages);
      const content = new Map(turns.map((m) => [m.id!, m.content]));
      let stored = 0;
      for (const r of reports) {
        ingest.stored += r.stored;
        ingest.pending += r.pending;
        ingest.refreshed += r.refreshed;
        ingest.dropped += r.dropped;
        for (const d of r.decisions) {
          if (d.outcome === 'dropped') continue;
          const ids = msgIds(d.source_ref);
          ids.forEach((id) => cited.add(id));
          if (d.outcome === 'stored' || d.outcome === 'pending') {
            stored++;
            const rule = /rule:([\w-]+)/.exec(d.reason)?.[1] ?? d.reason.replace(/\(.*$/, '');
            ingest.stored_by_rule[rule] = (ingest.stored_by_rule[rule] ?? 0) + 1;
            if (!ids.some((id) => c.labels[id] === 'fact')) {
              ingest.junk_stored++;
              ingest.junk_stored_by_rule[rule] = (ingest.junk_stored_by_rule[rule] ?? 0) + 1;
              ingest.examples.junk_stored.push(`${c.id}: ${d.text}`);
            }
          }
        }
      }
      const facts = Object.entries(c.labels)
        .filter(([, l]) => l === 'fact')
        .map(([id]) => id);
      const evidence = [...new Set(c.questions.flatMap((q) => q.evidence))];
      ingest.turns += turns.length;
      ingest.fact_turns += facts.length;
      ingest.fact_turns_kept += facts.filter((id) => cited.has(id)).length;
      ingest.evidence_turns += evidence.length;
      ingest.evidence_turns_kept += evidence.filter((id) => cited.has(id)).length;
      const dropped = reports.flatMap((r) => r.decisions.filter((d) => d.outcome === 'dropped'));
      /** The rules' junk class of a turn no memory cites (a sentence of it dropped as venting, …), if any. */
      const rulesJunkOf = (id: string): string | undefined => {
        if (cited.has(id)) return undefined;
        const text = content.get(id) ?? '';
        return dropped.find((d) => RULES_JUNK.test(d.reason) && d.text.length > 1 && text.includes(d.text))
          ?.reason;
      };
      for (const id of evidence.filter((e) => !cited.has(e))) {
        const text = content.get(id) ?? '';
        const d = dropped.find((x) => x.text.length > 3 && text.includes(x.text.slice(0, 40)));
        const rule = d ? d.reason.replace(/\(.*$/, '') : 'no decision (skipped or merged)';
        ingest.evidence_dropped_by[rule] = (ingest.evidence_dropped_by[rule] ?? 0) + 1;
        ingest.examples.evidence_dropped.push({ id, text, reason: d?.reason ?? rule });
      }
      log(
        `[${ci + 1}/${convs.length}] ingested ${c.id}: ${c.sessions.length} sessions, ${turns.length} turns -> ${stored} memories (${ms(t0)} ms)`,
      );
      for (const q of c.questions) {
        const tq = performance.now();
        let r: RecallResult;
        try {
          r = await started.request(RecallRequest, {
            query: q.question,
            project_ids: [c.id],
            top_k: K,
            mark_used: false,
            ...(args.budget ? { token_budget: args.budget } : {}),
          });
        } catch (e) {
          ingest.errors.push(`${q.id}: recall failed: ${e instanceof Error ? e.message : String(e)}`);
          answers.push({ question: q, items: [] });
          continue;
        }
        latencies.push(performance.now() - tq);
        returned.push(r.items.length);
        tokens.set(q.id, r.tokens);
        if (args.show.has(q.id)) showRecall(q, r);
        // An evidence item is junk when none of the turns it quotes is labelled fact (as a stored memory is).
        for (const item of r.items.slice(0, K)) {
          const turn = item.kind === 'evidence' ? item.episode?.message_id : undefined;
          if (!turn) continue;
          ingest.evidence_recalled++;
          const droppedAs = rulesJunkOf(turn);
          if (droppedAs) ingest.evidence_rules_junk++;
          if (msgIds(item.memory.source_ref).some((id) => c.labels[id] === 'fact')) continue;
          ingest.evidence_junk++;
          ingest.examples.junk_evidence.push({
            question: q.id,
            text: item.memory.text,
            dropped_as: droppedAs,
          });
        }
        answers.push({ question: q, items: r.items.slice(0, K).map((i) => msgIds(i.memory.source_ref)) });
        recalled.set(
          q.id,
          r.items.slice(0, K).map((i) => ({
            kind: i.kind,
            score: i.score,
            channels: i.channels,
            tier: i.memory.tier,
            cites: msgIds(i.memory.source_ref).map((id) => `${id}:${c.labels[id] ?? '?'}`),
            ...(i.episode
              ? {
                  linked: i.episode.memory_ids.length,
                  chatter: i.episode.chatter,
                  chars: i.episode.text.length,
                  asks: /[?？]\s*$/.test(i.episode.text),
                }
              : {}),
          })),
        );
      }
    }
  } finally {
    if (s) await s.stop();
    cleanupDataDir(dataDir);
  }
  return { answers, latencies, ingest, returned, recalled, tokens };
}

/** `--show`: what Mnemo recalled for one question, to read why it missed (evidence turns marked `*`). */
function showRecall(q: Question, r: RecallResult): void {
  const evidence = new Set(q.evidence);
  log(`${q.id} [${q.category}] ${q.question}  (evidence: ${q.evidence.join(', ')})`);
  r.items.slice(0, K).forEach((item, i) => {
    const hit = msgIds(item.memory.source_ref).some((id) => evidence.has(id));
    const text = item.memory.text.replace(/\s+/g, ' ').slice(0, 160);
    log(`  ${hit ? '*' : ' '}${i + 1}. ${item.kind} [${item.channels.join('+')}] ${item.score} ${text}`);
  });
}

// ------------------------------------------------------------------ baselines

interface BaselineTimes {
  bm25_index_ms: number;
  bm25_query_ms: number[];
  dense_index_ms: number;
}

type BaselineName = 'bm25' | 'dense' | 'fusion';
const BASELINES: readonly BaselineName[] = ['bm25', 'dense', 'fusion'];

async function runBaselines(convs: Conversation[]): Promise<{
  answers: Record<BaselineName, Answer[]>;
  /** Per question, each baseline's ranking to {@link FUSION_DEPTH} turns (for R@k at equal turns). */
  ranked: Map<string, Record<BaselineName, string[]>>;
  /** "speaker: text" of every turn, by message id. */
  turnText: Map<string, string>;
  times: BaselineTimes;
}> {
  const embedder = new LocalEmbeddingProvider({
    model: TEST_MODEL,
    modelPath: testModelPath(),
    allowRemote: false,
    log: () => undefined,
  });
  const out = { bm25: [] as Answer[], dense: [] as Answer[], fusion: [] as Answer[] };
  const ranked = new Map<string, Record<BaselineName, string[]>>();
  const turnText = new Map<string, string>();
  const times: BaselineTimes = { bm25_index_ms: 0, bm25_query_ms: [], dense_index_ms: 0 };
  try {
    await embedder.ready();
    for (const [ci, c] of convs.entries()) {
      const t0 = performance.now();
      const turns = turnsOf(c);
      for (const t of turns) turnText.set(t.id, t.text);
      let tb = performance.now();
      const bm25 = new Bm25Index(turns);
      times.bm25_index_ms += performance.now() - tb;
      tb = performance.now();
      const dense = await DenseIndex.build(turns, embedder);
      times.dense_index_ms += performance.now() - tb;
      const denseRanks = await dense.searchMany(
        c.questions.map((q) => q.question),
        FUSION_DEPTH,
      );
      c.questions.forEach((q, i) => {
        const tq = performance.now();
        const lex = bm25.search(q.question, FUSION_DEPTH);
        times.bm25_query_ms.push(performance.now() - tq);
        const vec = denseRanks[i]!;
        const wrap = (ids: string[]): string[][] => ids.slice(0, K).map((id) => [id]);
        out.bm25.push({ question: q, items: wrap(lex) });
        out.dense.push({ question: q, items: wrap(vec) });
        const fused = reciprocalRankFusion([lex, vec], FUSION_DEPTH);
        out.fusion.push({ question: q, items: wrap(fused) });
        ranked.set(q.id, { bm25: lex, dense: vec, fusion: fused });
      });
      log(`[${ci + 1}/${convs.length}] baselines over ${c.id}: ${turns.length} turns indexed (${ms(t0)} ms)`);
    }
  } finally {
    await embedder.dispose();
  }
  return { answers: out, ranked, turnText, times };
}

// ------------------------------------------------------------------ report

/** A language with no question in the run: its row is left out (it used to repeat the overall row). */
const NONE: SystemScores['overall'] = { n: 0, 'R@5': 0, 'R@k': 0, MRR: 0, evidence_recall: 0 };

/** The rows of every score table: each category, overall, each language, the updated facts. */
const SCORE_GROUPS: [string, (s: SystemScores) => SystemScores['overall']][] = [
  ...CATEGORIES.map(
    (c) =>
      [c, (s: SystemScores) => s.by_category[c]] as [string, (s: SystemScores) => SystemScores['overall']],
  ),
  ['overall', (s) => s.overall],
  ['English', (s) => s.by_language.en ?? NONE],
  ['Chinese', (s) => s.by_language.zh ?? NONE],
  ['updated facts', (s) => s.updated_facts],
];

function table(systems: Record<string, SystemScores>): string {
  const groups = SCORE_GROUPS;
  const names = Object.keys(systems);
  const rk = `R@${K}`;
  const head = `| | n | ${names.map((n) => `${n} R@5 | ${n} ${rk} | ${n} MRR`).join(' | ')} |`;
  const lines = [head, `|---|---|${names.map(() => '---|---|---').join('|')}|`];
  for (const [label, get] of groups) {
    const first = get(systems[names[0]!]!);
    if (!first.n) continue;
    lines.push(
      `| ${label} | ${first.n} | ${names
        .map((n) => {
          const s = get(systems[n]!);
          return `${s['R@5'].toFixed(3)} | ${s['R@k'].toFixed(3)} | ${s.MRR.toFixed(3)}`;
        })
        .join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

/**
 * R@k at equal turns (issue 37): per question, each baseline returns as many raw turns as Mnemo's answer
 * cited within k (distinct `msg:<id>` in the recalled items' `source_ref`), so a baseline is not judged on
 * 10 turns against memories that quote 30. The mean tokens are Mnemo's injection block (`RecallResult.tokens`)
 * and, for a baseline, its returned "speaker: text" turns by the sidecar's rough estimator.
 */
interface EqualTurns {
  /** Per question id: distinct turns Mnemo's answer cited within k, the baselines' budget. */
  turns: Map<string, number>;
  turns_mean: number;
  turns_max: number;
  tokens_mean: Record<string, number>;
  /** BM25, dense and fusion, each limited to the question's budget (`k` is the ranking depth, the cap). */
  systems: Record<string, SystemScores>;
  answers: Record<BaselineName, Answer[]>;
}

const DISPLAY: Record<BaselineName, string> = { bm25: 'BM25', dense: 'dense', fusion: 'fusion' };

function equalTurns(
  mnemo: Answer[],
  mnemoTokens: Map<string, number>,
  b: Awaited<ReturnType<typeof runBaselines>>,
  langOf: (q: Question) => string,
): EqualTurns {
  const turns = new Map(mnemo.map((a) => [a.question.id, new Set(a.items.flat()).size] as const));
  const answers: Record<BaselineName, Answer[]> = { bm25: [], dense: [], fusion: [] };
  const tokens: Record<BaselineName, number> = { bm25: 0, dense: 0, fusion: 0 };
  for (const a of mnemo) {
    const n = turns.get(a.question.id) ?? 0;
    const r = b.ranked.get(a.question.id);
    for (const name of BASELINES) {
      const ids = (r?.[name] ?? []).slice(0, n);
      answers[name].push({ question: a.question, items: ids.map((id) => [id]) });
      tokens[name] += ids.reduce((t, id) => t + estimateTokens(b.turnText.get(id) ?? ''), 0);
    }
  }
  const n = Math.max(1, mnemo.length);
  const counts = [...turns.values()];
  const tok = [...mnemoTokens.values()];
  return {
    turns,
    turns_mean: round(counts.reduce((x, y) => x + y, 0) / n, 2),
    turns_max: Math.max(0, ...counts),
    tokens_mean: {
      Mnemo: Math.round(tok.reduce((x, y) => x + y, 0) / Math.max(1, tok.length)),
      ...Object.fromEntries(BASELINES.map((name) => [DISPLAY[name], Math.round(tokens[name] / n)])),
    },
    systems: Object.fromEntries(
      BASELINES.map((name) => [DISPLAY[name], scoreSystem(answers[name], FUSION_DEPTH, langOf)]),
    ),
    answers,
  };
}

/** Mnemo's R@k and MRR beside each baseline's R@k and MRR at equal turns, by category and language. */
function equalTable(mnemo: SystemScores, eq: EqualTurns): string {
  const groups = SCORE_GROUPS;
  const names = Object.keys(eq.systems);
  const head = `| | n | Mnemo R@${K} | Mnemo MRR | ${names.map((n) => `${n} R@=turns | ${n} MRR@=turns`).join(' | ')} |`;
  const lines = [head, `|---|---|---|---|${names.map(() => '---|---').join('|')}|`];
  for (const [label, get] of groups) {
    const m = get(mnemo);
    if (!m.n) continue;
    lines.push(
      `| ${label} | ${m.n} | ${m['R@k'].toFixed(3)} | ${m.MRR.toFixed(3)} | ${names
        .map((n) => {
          const s = get(eq.systems[n]!);
          return `${s['R@k'].toFixed(3)} | ${s.MRR.toFixed(3)}`;
        })
        .join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

function equalLine(eq: EqualTurns): string {
  const t = eq.tokens_mean;
  return `R@k at equal turns: per question, each baseline returns as many raw turns as Mnemo's answer cited within k (mean ${eq.turns_mean}, max ${eq.turns_max}). Mean tokens per answer: Mnemo ${t.Mnemo} (its injection block), BM25 ${t.BM25}, dense ${t.dense}, fusion ${t.fusion} (the returned turns).`;
}

/** One split (the written-against set or the held-out one) through Mnemo and the baselines, scored. */
async function runSplit(convs: Conversation[]): Promise<{
  convs: Conversation[];
  dataset: Record<string, unknown>;
  mnemo: Awaited<ReturnType<typeof runMnemo>>;
  baselines: Awaited<ReturnType<typeof runBaselines>>;
  systems: Record<string, SystemScores>;
  equal: EqualTurns;
}> {
  const mnemo = await runMnemo(convs);
  const baselines = await runBaselines(convs);
  const lang = new Map(convs.flatMap((c) => c.questions.map((q) => [q.id, c.lang] as const)));
  const langOf = (q: Question): string => lang.get(q.id) ?? 'en';
  const systems: Record<string, SystemScores> = {
    Mnemo: scoreSystem(mnemo.answers, K, langOf),
    BM25: scoreSystem(baselines.answers.bm25, K, langOf),
    dense: scoreSystem(baselines.answers.dense, K, langOf),
    fusion: scoreSystem(baselines.answers.fusion, K, langOf),
  };
  const equal = equalTurns(mnemo.answers, mnemo.tokens, baselines, langOf);
  return { convs, dataset: describeDataset(convs), mnemo, baselines, systems, equal };
}
type SplitRun = Awaited<ReturnType<typeof runSplit>>;

/** Each question with what Mnemo recalled and every system's rank (the results file). */
function perQuestion(run: SplitRun): Record<string, unknown>[] {
  const { mnemo, baselines, equal } = run;
  return mnemo.answers.map((a, i) => ({
    id: a.question.id,
    category: a.question.category,
    question: a.question.question,
    evidence: a.question.evidence,
    recalled: mnemo.recalled.get(a.question.id) ?? [],
    ranks: {
      Mnemo: hitRankOf(a),
      BM25: hitRankOf(baselines.answers.bm25[i]!),
      dense: hitRankOf(baselines.answers.dense[i]!),
      fusion: hitRankOf(baselines.answers.fusion[i]!),
    },
    turns_cited: equal.turns.get(a.question.id) ?? 0,
    tokens: mnemo.tokens.get(a.question.id),
    ranks_equal_turns: Object.fromEntries(
      BASELINES.map((name) => [DISPLAY[name], hitRankOf(equal.answers[name][i]!)]),
    ),
  }));
}

const equalJson = (eq: EqualTurns): Record<string, unknown> => ({
  turns_mean: eq.turns_mean,
  turns_max: eq.turns_max,
  tokens_mean: eq.tokens_mean,
  systems: eq.systems,
});

async function main(): Promise<void> {
  args = options();
  K = args.k;
  const all = loadDataset();
  const problems = checkDataset(all);
  if (problems.length) {
    for (const p of problems) log(`  ${p}`);
    throw new Error(
      `The eval set in eval/data has ${problems.length} problems; fix the blocks and rerun eval/generate.ts.`,
    );
  }
  const heldAll = loadDataset(HELDOUT_DIR);
  const heldProblems = checkDataset([...all, ...heldAll]);
  if (heldProblems.length) {
    for (const p of heldProblems) log(`  ${p}`);
    throw new Error(
      `The held-out split in eval/heldout has ${heldProblems.length} problems; it is written by hand (eval/heldout/BRIEFS.md), so fix the file and say so in the commit: its hash changes.`,
    );
  }
  const heldHash = hashSplit(HELDOUT_DIR);
  const only = args.only
    ? new Set(
        args.only
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean),
      )
    : undefined;
  if (only)
    for (const id of only)
      if (![...all, ...heldAll].some((c) => c.id === id))
        throw new Error(
          `Unknown conversation "${id}"; the ids are the file names in eval/data and eval/heldout.`,
        );
  const convs = only ? all.filter((c) => only.has(c.id)) : all;
  const held = only ? heldAll.filter((c) => only.has(c.id)) : heldAll;
  const dataset = describeDataset(convs);
  const heldDataset = describeDataset(held);
  log(
    `Eval set: ${dataset.conversations} conversations, ${dataset.turns} turns, ${dataset.questions} questions; held-out split: ${heldDataset.conversations} conversations, ${heldDataset.turns} turns, ${heldDataset.questions} questions; k = ${K}`,
  );

  ensureModel();
  ensureBuild();
  if (!existsSync(SIDECAR_JS)) throw new Error(`${SIDECAR_JS} is missing after the build.`);
  const t0 = performance.now();
  const written = convs.length ? await runSplit(convs) : undefined;
  const heldRun = held.length ? await runSplit(held) : undefined;
  const rulesSet = scoreRulesSet(LABELLED_TURNS);
  const rulesHeldOut = scoreRulesSet(HELD_OUT_TURNS);
  const out: string[] = [];
  const errors: string[] = [];
  let summary: Summary | undefined;
  let baselineTimes: Record<string, unknown> | undefined;
  if (written) {
    const { mnemo, systems, equal } = written;
    const ing = mnemo.ingest;
    const stored = ing.stored + ing.pending;
    summary = summaryOf(written);
    const times = written.baselines.times;
    baselineTimes = {
      bm25_index_ms: Math.round(times.bm25_index_ms),
      bm25_query_ms: {
        p50: round(percentile(times.bm25_query_ms, 50), 2),
        p95: round(percentile(times.bm25_query_ms, 95), 2),
      },
      dense_index_ms: Math.round(times.dense_index_ms),
    };
    out.push(
      `\nRecall eval, k = ${K}: ${dataset.questions} questions over ${dataset.conversations} conversations (${dataset.turns} turns), ${new Date().toISOString()}`,
    );
    out.push('');
    out.push(table(systems));
    out.push('');
    out.push(
      `Mnemo stored ${stored} memories for ${ing.turns} turns (${summary.stored_per_turn} per turn; ${ing.pending} of them pending review); junk share of what it stored: ${summary.junk_share_of_stored}.`,
    );
    const byRule = Object.entries(ing.stored_by_rule)
      .sort((a, b) => b[1] - a[1])
      .map(([r, n]) => `${r} ${ing.junk_stored_by_rule[r] ?? 0}/${n}`)
      .join(', ');
    out.push(`Junk of what each rule stored (junk/stored): ${byRule || 'none'}.`);
    out.push(
      `Fact-bearing turns kept (cited by a memory): ${summary.fact_turns_kept} of ${ing.fact_turns}; evidence turns kept: ${summary.evidence_turns_kept} of ${ing.evidence_turns} (Mnemo's ceiling).`,
    );
    for (const [name, r] of [
      ['written against', rulesSet],
      ['held out', rulesHeldOut],
    ] as const)
      out.push(
        `Rules on the labelled turns (${name}: ${r.facts} fact, ${r.junk} junk, half Chinese): fact-bearing turns kept ${r.fact_kept} (en ${r.by_lang.en.fact_kept}, zh ${r.by_lang.zh.fact_kept}); junk share of what is kept ${r.junk_share} (en ${r.by_lang.en.junk_share}, zh ${r.by_lang.zh.junk_share}; target <= 0.10).`,
      );
    out.push(
      `Evidence turns no memory cites, by the rule that dropped them: ${
        Object.entries(ing.evidence_dropped_by)
          .sort((a, b) => b[1] - a[1])
          .map(([r, n]) => `${r} ${n}`)
          .join(', ') || 'none'
      }.`,
    );
    out.push(
      `Junk share of recalled evidence: ${summary.junk_share_of_evidence} (${ing.evidence_junk} of ${ing.evidence_recalled} excerpts quote no turn labelled fact; target <= 0.05); quoted turns the rules dropped as venting, small talk or hedge: ${summary.rules_junk_share_of_evidence} (${ing.evidence_rules_junk}).`,
    );
    out.push(
      `Recall latency over JSON-RPC: p50 ${summary.recall_ms.p50} ms, p95 ${summary.recall_ms.p95} ms (${summary.recall_ms.n} recalls); items returned per recall: ${summary.items_returned_mean} of ${K}, empty: ${summary.empty_recalls}.`,
    );
    out.push(
      `Ingest per session: p50 ${summary.ingest_session_ms.p50} ms, p95 ${summary.ingest_session_ms.p95} ms. Stale value ranked first on updated facts: Mnemo ${systems.Mnemo!.updated_facts.stale_first}, BM25 ${systems.BM25!.updated_facts.stale_first}, dense ${systems.dense!.updated_facts.stale_first}, fusion ${systems.fusion!.updated_facts.stale_first}.`,
    );
    out.push('');
    out.push(equalLine(equal));
    out.push('');
    out.push(equalTable(systems.Mnemo!, equal));
    errors.push(...ing.errors);
  }
  let heldSummary: Summary | undefined;
  if (heldRun) {
    const { mnemo, systems, equal } = heldRun;
    const ing = mnemo.ingest;
    heldSummary = summaryOf(heldRun);
    out.push('');
    out.push(
      `Held-out split, k = ${K}: ${heldDataset.questions} questions over ${heldDataset.conversations} conversations (${heldDataset.turns} turns), eval/heldout sha256 ${heldHash.sha256} (written by hand from eval/heldout/BRIEFS.md without reading the rules, lexicons or generator; never tune on it)`,
    );
    for (const f of heldHash.files) out.push(`  ${f.file} sha256 ${f.sha256}`);
    out.push('');
    out.push(table(systems));
    out.push('');
    out.push(
      `Held-out: Mnemo stored ${ing.stored + ing.pending} memories for ${ing.turns} turns (${heldSummary.stored_per_turn} per turn); junk share of what it stored: ${heldSummary.junk_share_of_stored}; fact-bearing turns kept ${heldSummary.fact_turns_kept} of ${ing.fact_turns}; evidence turns kept ${heldSummary.evidence_turns_kept} of ${ing.evidence_turns} (Mnemo's ceiling); junk share of recalled evidence ${heldSummary.junk_share_of_evidence}; stale value ranked first on updated facts: Mnemo ${systems.Mnemo!.updated_facts.stale_first}, BM25 ${systems.BM25!.updated_facts.stale_first}, dense ${systems.dense!.updated_facts.stale_first}, fusion ${systems.fusion!.updated_facts.stale_first}.`,
    );
    out.push('');
    out.push(`Held-out ${equalLine(equal)}`);
    out.push('');
    out.push(equalTable(systems.Mnemo!, equal));
    errors.push(...ing.errors);
  }
  if (errors.length) out.push(`Errors (${errors.length}):\n${errors.map((e) => `  ${e}`).join('\n')}`);
  console.log(out.join('\n'));

  const dir = path.join(REPO, 'eval', 'results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(
    file,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        seconds: Math.round(ms(t0) / 1000),
        machine: {
          cpu: os.cpus()[0]?.model ?? 'unknown',
          cores: os.cpus().length,
          memory_gb: round(os.totalmem() / 1024 ** 3, 1),
          node: process.version,
          os: `${os.type()} ${os.release()} ${os.arch()}`,
        },
        model: TEST_MODEL,
        k: K,
        only: only ? [...only] : undefined,
        dataset,
        systems: written?.systems,
        equal_turns: written ? equalJson(written.equal) : undefined,
        mnemo:
          written && summary
            ? {
                ...summary,
                rules_labelled: { written_against: rulesSet, held_out: rulesHeldOut },
                ingest: { ...written.mnemo.ingest, session_ms: undefined },
              }
            : undefined,
        baseline_times: baselineTimes,
        questions: written ? perQuestion(written) : [],
        heldout: {
          dir: 'eval/heldout',
          sha256: heldHash.sha256,
          files: heldHash.files,
          dataset: heldDataset,
          systems: heldRun?.systems,
          equal_turns: heldRun ? equalJson(heldRun.equal) : undefined,
          mnemo:
            heldRun && heldSummary
              ? { ...heldSummary, ingest: { ...heldRun.mnemo.ingest, session_ms: undefined } }
              : undefined,
          questions: heldRun ? perQuestion(heldRun) : [],
        },
      },
      null,
      2,
    ) + '\n',
  );
  console.log(`\nWrote ${path.relative(REPO, file)}`);
  if (errors.length) process.exitCode = 1;
}

interface Summary {
  stored_per_turn: number;
  junk_share_of_stored: number;
  fact_turns_kept: number;
  evidence_turns_kept: number;
  recall_ms: { p50: number; p95: number; n: number };
  ingest_session_ms: { p50: number; p95: number; n: number };
  items_returned_mean: number;
  empty_recalls: number;
  /** Share of recalled evidence items (within k) none of whose quoted turns the set labels fact (target <= 0.05). */
  junk_share_of_evidence: number;
  /** The same, counting only turns the rules dropped as venting, small talk or a hedge. */
  rules_junk_share_of_evidence: number;
}

function summaryOf(run: SplitRun): Summary {
  const { mnemo } = run;
  const ing = mnemo.ingest;
  const stored = ing.stored + ing.pending;
  return {
    stored_per_turn: round(stored / Math.max(1, ing.turns)),
    junk_share_of_stored: round(ing.junk_stored / Math.max(1, stored)),
    fact_turns_kept: round(ing.fact_turns_kept / Math.max(1, ing.fact_turns)),
    evidence_turns_kept: round(ing.evidence_turns_kept / Math.max(1, ing.evidence_turns)),
    recall_ms: {
      p50: round(percentile(mnemo.latencies, 50), 1),
      p95: round(percentile(mnemo.latencies, 95), 1),
      n: mnemo.latencies.length,
    },
    ingest_session_ms: {
      p50: percentile(ing.session_ms, 50),
      p95: percentile(ing.session_ms, 95),
      n: ing.session_ms.length,
    },
    items_returned_mean: round(
      mnemo.returned.reduce((a, b) => a + b, 0) / Math.max(1, mnemo.returned.length),
      2,
    ),
    empty_recalls: round(mnemo.returned.filter((n) => n === 0).length / Math.max(1, mnemo.returned.length)),
    junk_share_of_evidence: round(ing.evidence_junk / Math.max(1, ing.evidence_recalled)),
    rules_junk_share_of_evidence: round(ing.evidence_rules_junk / Math.max(1, ing.evidence_recalled)),
  };
}

function hitRankOf(a: Answer): number {
  const ev = new Set(a.question.evidence);
  return a.items.findIndex((cites) => cites.some((id) => ev.has(id))) + 1;
}

main().catch((e: unknown) => {
  log(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
