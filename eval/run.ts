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
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { LocalEmbeddingProvider } from '../sidecar/embed/index';
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
}> {
  const dataDir = tempDataDir('mnemo-eval-');
  const recalled = new Map<string, RecalledItem[]>();
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
  return { answers, latencies, ingest, returned, recalled };
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

async function runBaselines(
  convs: Conversation[],
): Promise<{ answers: Record<'bm25' | 'dense' | 'fusion', Answer[]>; times: BaselineTimes }> {
  const embedder = new LocalEmbeddingProvider({
    model: TEST_MODEL,
    modelPath: testModelPath(),
    allowRemote: false,
    log: () => undefined,
  });
  const out = { bm25: [] as Answer[], dense: [] as Answer[], fusion: [] as Answer[] };
  const times: BaselineTimes = { bm25_index_ms: 0, bm25_query_ms: [], dense_index_ms: 0 };
  try {
    await embedder.ready();
    for (const [ci, c] of convs.entries()) {
      const t0 = performance.now();
      const turns = turnsOf(c);
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
        out.fusion.push({ question: q, items: wrap(reciprocalRankFusion([lex, vec], K)) });
      });
      log(`[${ci + 1}/${convs.length}] baselines over ${c.id}: ${turns.length} turns indexed (${ms(t0)} ms)`);
    }
  } finally {
    await embedder.dispose();
  }
  return { answers: out, times };
}

// ------------------------------------------------------------------ report

function table(systems: Record<string, SystemScores>): string {
  const groups: [string, (s: SystemScores) => { n: number; 'R@5': number; 'R@k': number; MRR: number }][] = [
    ...CATEGORIES.map(
      (c) =>
        [c, (s: SystemScores) => s.by_category[c]] as [string, (s: SystemScores) => SystemScores['overall']],
    ),
    ['overall', (s) => s.overall],
    ['English', (s) => s.by_language.en ?? s.overall],
    ['Chinese', (s) => s.by_language.zh ?? s.overall],
    ['updated facts', (s) => s.updated_facts],
  ];
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
      if (!all.some((c) => c.id === id))
        throw new Error(`Unknown conversation "${id}"; the ids are the file names in eval/data.`);
  const convs = only ? all.filter((c) => only.has(c.id)) : all;
  const dataset = describeDataset(convs);
  log(
    `Eval set: ${dataset.conversations} conversations, ${dataset.turns} turns, ${dataset.questions} questions; k = ${K}`,
  );

  ensureModel();
  ensureBuild();
  if (!existsSync(SIDECAR_JS)) throw new Error(`${SIDECAR_JS} is missing after the build.`);
  const t0 = performance.now();
  const mnemo = await runMnemo(convs);
  const { answers: baselines, times } = await runBaselines(convs);
  const lang = new Map(convs.flatMap((c) => c.questions.map((q) => [q.id, c.lang] as const)));
  const langOf = (q: Question): string => lang.get(q.id) ?? 'en';
  const systems: Record<string, SystemScores> = {
    Mnemo: scoreSystem(mnemo.answers, K, langOf),
    BM25: scoreSystem(baselines.bm25, K, langOf),
    dense: scoreSystem(baselines.dense, K, langOf),
    fusion: scoreSystem(baselines.fusion, K, langOf),
  };
  const ing = mnemo.ingest;
  const stored = ing.stored + ing.pending;
  const rulesSet = scoreRulesSet(LABELLED_TURNS);
  const rulesHeldOut = scoreRulesSet(HELD_OUT_TURNS);
  const summary = {
    stored_per_turn: round(stored / Math.max(1, ing.turns)),
    junk_share_of_stored: round(ing.junk_stored / Math.max(1, stored)),
    /** The rule stage on the labelled turns of test/fixtures/rules/labelled.ts. */
    rules_labelled: { written_against: rulesSet, held_out: rulesHeldOut },
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
    /** Share of recalled evidence items (within k) none of whose quoted turns the set labels fact (target <= 0.05). */
    junk_share_of_evidence: round(ing.evidence_junk / Math.max(1, ing.evidence_recalled)),
    /** The same, counting only turns the rules dropped as venting, small talk or a hedge. */
    rules_junk_share_of_evidence: round(ing.evidence_rules_junk / Math.max(1, ing.evidence_recalled)),
  };
  const baselineTimes = {
    bm25_index_ms: Math.round(times.bm25_index_ms),
    bm25_query_ms: {
      p50: round(percentile(times.bm25_query_ms, 50), 2),
      p95: round(percentile(times.bm25_query_ms, 95), 2),
    },
    dense_index_ms: Math.round(times.dense_index_ms),
  };

  const out: string[] = [];
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
  if (ing.errors.length)
    out.push(`Errors (${ing.errors.length}):\n${ing.errors.map((e) => `  ${e}`).join('\n')}`);
  console.log(out.join('\n'));

  const dir = path.join(REPO, 'eval', 'results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  const perQuestion = mnemo.answers.map((a, i) => ({
    id: a.question.id,
    category: a.question.category,
    question: a.question.question,
    evidence: a.question.evidence,
    recalled: mnemo.recalled.get(a.question.id) ?? [],
    ranks: {
      Mnemo: hitRankOf(a),
      BM25: hitRankOf(baselines.bm25[i]!),
      dense: hitRankOf(baselines.dense[i]!),
      fusion: hitRankOf(baselines.fusion[i]!),
    },
  }));
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
        systems,
        mnemo: { ...summary, ingest: { ...ing, session_ms: undefined } },
        baseline_times: baselineTimes,
        questions: perQuestion,
      },
      null,
      2,
    ) + '\n',
  );
  console.log(`\nWrote ${path.relative(REPO, file)}`);
  if (ing.errors.length) process.exitCode = 1;
}

function hitRankOf(a: Answer): number {
  const ev = new Set(a.question.evidence);
  return a.items.findIndex((cites) => cites.some((id) => ev.has(id))) + 1;
}

main().catch((e: unknown) => {
  log(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
