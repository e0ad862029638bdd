/**
 * Realistic, deterministic coding-agent sessions (seeded), for the capture benchmark and the capture eval:
 * a person gives an agent a task (sometimes stating a decision or a rule), the agent reads and edits files,
 * runs commands (a failing test, then the fix; big outputs, file dumps, a log repeating one line, now and
 * then a secret), reports what it found (sometimes a root cause worth keeping), and the person approves,
 * corrects ("no, the port is 5433") or asks; about 40% in Chinese. Every message that states a fact is
 * labelled, the person's and the agent's apart. `writeClaudeCode` writes sessions in Claude Code's JSONL
 * line format (docs/capture.md), one file per session.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { memoryText, prng, type Rand } from './generate';

const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const int = (r: Rand, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));

export interface GenMessage {
  id: string;
  role: 'user' | 'assistant' | 'tool';
  text: string;
  at: number;
  tool?: { name: string; input: Record<string, unknown>; output: string; isError: boolean };
  /** States a fact worth keeping: the person's (`person`) or the agent's finding (`agent`). */
  fact?: 'person' | 'agent';
}

export interface GenSession {
  id: string;
  cwd: string;
  messages: GenMessage[];
}

const FILES = [
  'src/server.ts',
  'src/db/pool.ts',
  'src/api/orders.ts',
  'src/config.ts',
  'test/orders.spec.ts',
  'src/worker/retry.ts',
  'README.md',
  'package.json',
  'src/auth/session.ts',
  'scripts/deploy.sh',
];
const TASKS_EN = [
  (f: string) => `Fix the failing test in ${f}.`,
  () => `Add a --dry-run flag to the deploy script and document it.`,
  (f: string) => `Why does ${f} time out on CI but not locally?`,
  (f: string) => `Refactor ${f} to use the shared connection pool.`,
  (f: string) => `Can you look at the flaky retry logic in ${f}?`,
  () => `Upgrade the logger and make sure nothing else breaks.`,
  (f: string) => `Please update ${f} and clean up the imports while you are there.`,
  () => `Can you write a migration for the new orders table?`,
];
const TASKS_ZH = [
  (f: string) => `修一下 ${f} 里失败的测试。`,
  () => `给部署脚本加一个 --dry-run 参数，并写进文档。`,
  (f: string) => `为什么 ${f} 在 CI 上超时，本地却没问题？`,
  (f: string) => `把 ${f} 改成用公共的连接池。`,
  (f: string) => `看一下 ${f} 里的重试逻辑，好像不稳定。`,
];
const ACKS = [
  'ok go ahead',
  'looks good',
  'thanks!',
  'yes',
  'sure, do it',
  'perfect',
  '继续',
  '好的',
  '可以',
  '谢谢',
];
const QUESTIONS = [
  'why did that fail?',
  'what changed in the last commit?',
  'is the migration safe to rerun?',
  '为什么会失败？',
  '这个改动会影响线上吗？',
];
const AGENT_STEPS = [
  (f: string) => `I'll start by reading ${f} to see how the pool is created.`,
  () => `Let me run the tests to see the current failure.`,
  (f: string) => `The failure comes from ${f}; the handler does not await the query.`,
  () => `I'll make the change and rerun the suite.`,
  (f: string) => `我先看一下 ${f} 的实现。`,
  () => `我来跑一下测试看看现在的报错。`,
];
/** What agents say while working: plans and status, in the words the rules look for (never a fact). */
const AGENT_PROSE = [
  (f: string) => `I'll update ${f} to set the pool size from the config instead of hard-coding it.`,
  () => `I've changed the import order and restarted the dev server.`,
  (f: string) => `Next I will add a test that covers the timeout path in ${f}.`,
  () => `我会先把配置项改成从环境变量读取，然后重新跑测试。`,
  () => `Let me set up a local database so the integration tests can run.`,
];
const DONE = [
  (f: string) => `Done. I updated ${f} and all tests pass now.`,
  () => `All 214 tests pass. I also removed an unused import.`,
  (f: string) => `已修改 ${f}，测试全部通过。`,
];
const CORRECTIONS_EN = [
  (r: Rand) => `No — the staging database port is ${int(r, 5430, 5439)}, not 5432; please keep that.`,
  () => `Don't use npm here, this repo uses pnpm only.`,
  () => `The API base URL for production is https://api.example.com/v3, not v2.`,
];
const CORRECTIONS_ZH = [
  () => `不对，测试库的端口是 5433，不是 5432，以后都用这个。`,
  () => `这个仓库只用 pnpm，不要用 npm。`,
];

function testOutput(r: Rand, pass: boolean, big: boolean): string {
  const lines = [`> jest --ci`, ''];
  const n = big ? int(r, 150, 900) : int(r, 4, 25);
  for (let i = 0; i < n; i++)
    lines.push(`${pass || i % 17 ? 'PASS' : 'FAIL'} test/case-${i}.spec.ts (${int(r, 1, 900)} ms)`);
  lines.push(pass ? `Tests: ${n} passed, ${n} total` : `Tests: 1 failed, ${n - 1} passed, ${n} total`);
  return lines.join('\n');
}

function fileDump(r: Rand, f: string): string {
  const n = int(r, 15, 150);
  const lines = [`// ${f}`];
  for (let i = 0; i < n; i++)
    lines.push(`export const value${i} = compute(${i}, ${int(r, 0, 999)}); // line ${i}`);
  return lines.join('\n');
}

/** One session of about `size` messages. */
export function agentSession(r: Rand, index: number, size: number, cwd: string): GenSession {
  const zh = r() < 0.4;
  const f = pick(r, FILES);
  let at = Date.UTC(2026, 8, 1) + index * 3_600_000;
  const messages: GenMessage[] = [];
  let n = 0;
  const id = (p: string) => `${p}-${index}-${n++}`;
  const add = (m: Omit<GenMessage, 'at' | 'id'>, p: string) => {
    at += int(r, 2_000, 40_000);
    messages.push({ ...m, id: id(p), at });
  };
  const task = (zh ? pick(r, TASKS_ZH) : pick(r, TASKS_EN))(f);
  if (r() < 0.3) add({ role: 'user', text: `${task} ${memoryText(r)}`, fact: 'person' }, 'u');
  else add({ role: 'user', text: task }, 'u');
  while (messages.length < size) {
    const roll = r();
    if (roll < 0.22) add({ role: 'assistant', text: pick(r, AGENT_STEPS)(pick(r, FILES)) }, 'a');
    else if (roll < 0.55) {
      const fail = r() < 0.3;
      const big = r() < 0.08;
      const secret =
        r() < 0.02 ? `\nexport DB_PASSWORD=s3cr3t-${int(r, 1000, 9999)}-${int(r, 1000, 9999)}` : '';
      const repeated = r() < 0.02 ? `\n${'WARN pool exhausted, retrying\n'.repeat(600)}` : '';
      add(
        {
          role: 'tool',
          text: '',
          tool: {
            name: 'Bash',
            input: {
              command: pick(r, [
                'pnpm test',
                'pnpm test -- --runInBand',
                'npm run lint',
                'git status',
                'pnpm build',
                `node ${pick(r, FILES)}`,
              ]),
            },
            output: testOutput(r, !fail, big) + secret + repeated,
            isError: fail,
          },
        },
        't',
      );
    } else if (roll < 0.75) {
      const file = pick(r, FILES);
      const read = r() < 0.6;
      add(
        {
          role: 'tool',
          text: '',
          tool: {
            name: read ? 'Read' : 'Edit',
            input: { file_path: `${cwd}/${file}` },
            output: read ? fileDump(r, file) : `The file ${file} has been updated.`,
            isError: false,
          },
        },
        't',
      );
    } else if (roll < 0.78)
      add({ role: 'assistant', text: `Root cause: ${memoryText(r)}`, fact: 'agent' }, 'a');
    else if (roll < 0.8) add({ role: 'assistant', text: pick(r, AGENT_PROSE)(pick(r, FILES)) }, 'a');
    else if (roll < 0.86) add({ role: 'assistant', text: pick(r, DONE)(f) }, 'a');
    else if (roll < 0.94) add({ role: 'user', text: pick(r, r() < 0.7 ? ACKS : QUESTIONS) }, 'u');
    else if (roll < 0.97)
      add(
        { role: 'user', text: (zh ? pick(r, CORRECTIONS_ZH) : pick(r, CORRECTIONS_EN))(r), fact: 'person' },
        'u',
      );
    else add({ role: 'user', text: memoryText(r), fact: 'person' }, 'u');
  }
  return {
    id: `${index.toString(16).padStart(8, '0')}-0000-4000-8000-${index.toString().padStart(12, '0')}`,
    cwd,
    messages,
  };
}

/** `count` sessions of about `size` messages each (deterministic for a seed). */
export function agentSessions(count: number, size: number, cwd: string, seed = 32): GenSession[] {
  const r = prng(seed);
  return Array.from({ length: count }, (_, i) =>
    agentSession(r, i, Math.max(4, Math.round(size * (0.5 + r()))), cwd),
  );
}

/** Claude Code's JSONL lines of a session (a tool call and its result are two lines). */
export function claudeLines(s: GenSession): string[] {
  const base = {
    cwd: s.cwd,
    sessionId: s.id,
    version: '2.1.7',
    gitBranch: 'main',
    isSidechain: false,
    userType: 'external',
  };
  const out: string[] = [];
  for (const m of s.messages) {
    const timestamp = new Date(m.at).toISOString();
    if (m.role === 'user')
      out.push(
        JSON.stringify({
          ...base,
          type: 'user',
          uuid: m.id,
          timestamp,
          message: { role: 'user', content: m.text },
        }),
      );
    else if (m.role === 'assistant')
      out.push(
        JSON.stringify({
          ...base,
          type: 'assistant',
          uuid: m.id,
          timestamp,
          message: { id: `msg_${m.id}`, role: 'assistant', content: [{ type: 'text', text: m.text }] },
        }),
      );
    else {
      const t = m.tool!;
      out.push(
        JSON.stringify({
          ...base,
          type: 'assistant',
          uuid: `${m.id}-c`,
          timestamp,
          message: {
            id: `msg_${m.id}`,
            role: 'assistant',
            content: [{ type: 'tool_use', id: `toolu_${m.id}`, name: t.name, input: t.input }],
          },
        }),
        JSON.stringify({
          ...base,
          type: 'user',
          uuid: `${m.id}-r`,
          timestamp,
          message: {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: `toolu_${m.id}`, content: t.output, is_error: t.isError },
            ],
          },
        }),
      );
    }
  }
  return out;
}

/** Writes sessions as Claude Code transcripts under `home`; returns the bytes written. */
export function writeClaudeCode(home: string, sessions: GenSession[]): number {
  let bytes = 0;
  for (const s of sessions) {
    const dir = join(home, '.claude', 'projects', s.cwd.replace(/[^A-Za-z0-9]/g, '-'));
    mkdirSync(dir, { recursive: true });
    const text = claudeLines(s).join('\n') + '\n';
    writeFileSync(join(dir, `${s.id}.jsonl`), text);
    bytes += Buffer.byteLength(text);
  }
  return bytes;
}
