/**
 * Pipeline benchmark: throughput of redact + rules in sentences/s, and end-to-end latency of a
 * 50-turn mixed zh/en session through analyzeSession (normalize -> redact -> rules -> score).
 * Input is generated deterministically (seeded PRNG), so runs are comparable.
 *
 *   node --import tsx bench/pipeline.ts
 *
 * Prints a table and writes bench/results/pipeline-<UTC date>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { analyzeSession } from '../sidecar/pipeline/index';
import { normalizeSession } from '../sidecar/pipeline/normalize';
import { redactText } from '../sidecar/pipeline/redact';
import { applyRules, splitSentences } from '../sidecar/pipeline/rules';
import type { NormalizedMessage, RawMessage, SessionInput } from '../sidecar/pipeline/types';

let seed = 42;
function rand(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

const DEVICE_KINDS = [
  'PLC',
  'HMI',
  'RTU',
  'Modbus-TCP 网关',
  'k8s ingress',
  'Redis 集群',
  'Postgres 主库',
  '边缘节点',
];
/** A device name with a model number, so sentences rarely repeat (no tagger-cache flattery). */
const device = (): string =>
  `${pick(DEVICE_KINDS)} ${String.fromCharCode(65 + Math.floor(rand() * 26))}-${100 + Math.floor(rand() * 9900)}`;
const USER_LINES = [
  (d: string) => `${d} 通讯超时阈值设为 ${pick([500, 1500, 3000])}ms`,
  (_d: string) => `我习惯用vim，不要给我推荐nano`,
  (d: string) => `昨天把 ${d} 迁移到了新机房`,
  (d: string) => `可能是 ${d} 的网络问题`,
  (_d: string) => `这破驱动又崩了`,
  (d: string) => `参考《${d} 用户手册》第${pick([3, 12, 45])}页，把站号设为 ${pick([1, 2, 3])}`,
  (d: string) => `请记录：部署 ${d} 前先跑 hugo --minify 测试`,
  (_d: string) => `好的，谢谢`,
  (d: string) => `We decided to put ${d} behind the gateway on port ${pick([502, 8080, 6379])}.`,
  (_d: string) => `Maybe it's the firewall. I always use tmux, never suggest screen.`,
  (d: string) => `TCP RST 包集中出现在端口 502，确认为 ${d} 协议栈异常，非网络层问题。`,
  (d: string) => `帮我查一下 ${d} 的日志`,
  (d: string) =>
    `export ${d.replace(/\W+/g, '_').toUpperCase()}_TOKEN=ghp_${'Ab1Cd2Ef3G'.repeat(4)} 然后重启服务`,
  (_d: string) => `有问题打我电话 13812345678，或者发邮件 wang.li@example.com`,
  (d: string) => `Restart ${d} after changing the retry limit to ${pick([3, 5])}.`,
];
const ASSISTANT_LINES = [
  (d: string) => `好的，我来看看 ${d} 的日志。`,
  (d: string) => `排查后确认根因是 ${d} 站号配置错误，改为 3 后通讯恢复。`,
  (d: string) => `You could try increasing the timeout on ${d}. It might help.`,
  (d: string) => `Confirmed: the root cause was ${d} dropping idle connections after 60 s.`,
];

function makeSession(turns: number): SessionInput {
  const messages: RawMessage[] = [];
  const t0 = Date.UTC(2026, 4, 15, 8, 0, 0);
  for (let i = 0; i < turns; i++) {
    const d = device();
    const user = i % 2 === 0;
    const lines = Array.from({ length: 1 + Math.floor(rand() * 3) }, () =>
      (user ? pick(USER_LINES) : pick(ASSISTANT_LINES))(d),
    );
    messages.push({
      role: user ? 'user' : 'assistant',
      content: lines.join(user ? '。' : ' '),
      id: `b${i}`,
      timestamp: t0 + i * 45_000,
    });
  }
  return { project_id: 'SCADA-V2.3', source_type: 'troubleshooting_log', messages };
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function main(): Promise<void> {
  const clock = (): Date => new Date('2026-05-15T12:00:00Z');

  // Warm-up: loads secretlint, jieba's dictionary and en-pos once (reported separately).
  const tWarm = performance.now();
  await analyzeSession(makeSession(4), { clock });
  const warmupMs = performance.now() - tWarm;

  // Throughput: redact + rules over many messages (no session window, every message counted).
  const corpus: NormalizedMessage[] = [];
  for (let s = 0; s < 40; s++) {
    for (const m of makeSession(50).messages) {
      corpus.push({
        id: String(m.id),
        role: m.role === 'user' ? 'user' : 'assistant',
        content: m.content,
        timestamp: '2026-05-15T12:00:00.000Z',
      });
    }
  }
  const sentences = corpus.reduce((n, m) => n + splitSentences(m.content).length, 0);
  const tRedact = performance.now();
  const redacted: NormalizedMessage[] = [];
  for (const m of corpus) redacted.push({ ...m, content: (await redactText(m.content)).text });
  const redactMs = performance.now() - tRedact;
  const tRules = performance.now();
  const rules = applyRules(redacted, 'troubleshooting_log');
  const rulesMs = performance.now() - tRules;

  // Latency of a 50-turn session end to end.
  const session = makeSession(50);
  const lat: number[] = [];
  let last = await analyzeSession(session, { clock });
  for (let i = 0; i < 30; i++) {
    const t = performance.now();
    last = await analyzeSession(session, { clock });
    lat.push(performance.now() - t);
  }
  const windowed = normalizeSession(session, clock).messages;

  const result = {
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    throughput: {
      messages: corpus.length,
      sentences,
      redact_ms: round(redactMs),
      rules_ms: round(rulesMs),
      redact_sentences_per_s: Math.round(sentences / (redactMs / 1000)),
      rules_sentences_per_s: Math.round(sentences / (rulesMs / 1000)),
      redact_plus_rules_sentences_per_s: Math.round(sentences / ((redactMs + rulesMs) / 1000)),
      kept: rules.candidates.length,
      dropped: rules.dropped.length,
    },
    session_50_turns: {
      messages_in: session.messages.length,
      messages_in_window: windowed.length,
      runs: lat.length,
      p50_ms: round(percentile(lat, 50)),
      p95_ms: round(percentile(lat, 95)),
      max_ms: round(Math.max(...lat)),
      candidates: last.candidates.length,
      pending: last.candidates.filter((c) => c.pending).length,
      dropped: last.dropped.length,
      redactions: last.redactions ?? [],
    },
    warmup_ms: round(warmupMs),
  };

  const rows: Array<[string, string]> = [
    ['warm-up (load secretlint, jieba, en-pos)', `${result.warmup_ms} ms`],
    ['corpus', `${corpus.length} messages, ${sentences} sentences`],
    ['redact', `${result.throughput.redact_sentences_per_s.toLocaleString('en')} sentences/s`],
    ['rules', `${result.throughput.rules_sentences_per_s.toLocaleString('en')} sentences/s`],
    [
      'redact + rules',
      `${result.throughput.redact_plus_rules_sentences_per_s.toLocaleString('en')} sentences/s`,
    ],
    [
      '50-turn session p50 / p95 / max',
      `${result.session_50_turns.p50_ms} / ${result.session_50_turns.p95_ms} / ${result.session_50_turns.max_ms} ms`,
    ],
    [
      '50-turn session outcome',
      `${result.session_50_turns.messages_in_window}/${session.messages.length} msgs in window, ${result.session_50_turns.candidates} candidates (${result.session_50_turns.pending} pending), ${result.session_50_turns.dropped} dropped`,
    ],
  ];
  const w = Math.max(...rows.map((r) => r[0].length));
  console.log(`pipeline bench  node ${process.version}  ${result.cpu}`);
  console.log(`${'metric'.padEnd(w)}  value`);
  console.log(`${'-'.repeat(w)}  ${'-'.repeat(40)}`);
  for (const [k, v] of rows) console.log(`${k.padEnd(w)}  ${v}`);

  const dir = join(__dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `pipeline-${result.date.slice(0, 10)}.json`);
  writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
  console.log(`\nwrote ${file}`);
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
