/**
 * What capture asks of a person's review (issue 32): pending memories per 100 captured sessions (target
 * <= 20) beside the share of the facts kept, on
 *
 * - coding-agent sessions (bench/lib/agentSessions.ts: a task, the agent's reads, edits, commands and
 *   findings, the person's approvals, questions and corrections; labelled, the person's facts and the
 *   agent's findings apart), sent through the capture's own session building (sidecar/capture/session.ts)
 *   and the product's pipeline (`analyzeSession`: normalize, redact, rules, attribution, score, the agent
 *   gate), as a capture would;
 * - the eval's labelled conversations (eval/data), each session as if captured from an agent's chat.
 *
 * No store: pending counts are an upper bound (dedup against stored memories only lowers them).
 *
 *   npm run eval:capture                      # 300 generated sessions and every eval/data session
 *   npm run eval:capture -- --sessions 1000
 */
import { parseArgs } from 'node:util';
import { buildSessions } from '../sidecar/capture/session';
import type { CapturedMessage } from '../sidecar/capture/types';
import { analyzeSession } from '../sidecar/pipeline';
import type { SessionInput } from '../sidecar/protocol';
import { agentRef } from '../sidecar/shared/agentSources';
import { agentSessions, type GenSession } from '../bench/lib/agentSessions';
import { loadDataset } from './lib/dataset';

export interface CaptureTally {
  sessions: number;
  pending: number;
  stored: number;
  /** Stored or pending candidates that cite no labelled fact. */
  junk: number;
  facts: { person: number; agent: number };
  kept: { person: number; agent: number };
}

const blank = (): CaptureTally => ({
  sessions: 0,
  pending: 0,
  stored: 0,
  junk: 0,
  facts: { person: 0, agent: 0 },
  kept: { person: 0, agent: 0 },
});

function captured(s: GenSession): CapturedMessage[] {
  return s.messages.map((m) => ({
    id: m.id,
    role: m.role,
    text: m.text,
    timestamp: new Date(m.at).toISOString(),
    ...(m.role === 'assistant' ? { speaker: 'Claude Code' } : {}),
    ...(m.tool
      ? {
          tool: {
            name: m.tool.name,
            ...(m.tool.name === 'Bash'
              ? {
                  command: String(m.tool.input.command),
                  exitCode: m.tool.isError ? 1 : 0,
                  output: m.tool.output,
                }
              : { target: String(m.tool.input.file_path) }),
          },
        }
      : {}),
  }));
}

async function tally(
  t: CaptureTally,
  sessions: SessionInput[],
  facts: Map<string, 'person' | 'agent'>,
): Promise<void> {
  const kept = new Set<string>();
  for (const s of sessions) {
    const r = await analyzeSession(s);
    for (const c of r.candidates) {
      if (c.pending) t.pending++;
      else t.stored++;
      if (!c.message_ids.some((id) => facts.has(id))) t.junk++;
      for (const id of c.message_ids) kept.add(id);
    }
  }
  for (const [id, who] of facts) {
    t.facts[who]++;
    if (kept.has(id)) t.kept[who]++;
  }
  t.sessions++;
}

/** The same sessions without their agent reference: as the pipeline judged them before the agent gate. */
const ungated = (sessions: SessionInput[]) => sessions.map((s) => ({ ...s, source_ref: [] }));

export async function runCaptureEval(
  count: number,
): Promise<{ coding: CaptureTally; codingUngated: CaptureTally; chats: CaptureTally }> {
  const coding = blank();
  const codingUngated = blank();
  for (const s of agentSessions(count, 50, '/home/dev/shop', 32)) {
    const built = buildSessions(captured(s), { source: 'claude-code', sessionId: s.id, projectId: 'shop' });
    const facts = new Map(s.messages.filter((m) => m.fact).map((m) => [m.id, m.fact!]));
    await tally(coding, built.sessions, facts);
    await tally(codingUngated, ungated(built.sessions), facts);
  }
  const chats = blank();
  for (const c of loadDataset())
    for (const s of c.sessions) {
      const facts = new Map<string, 'person' | 'agent'>(
        s.messages
          .filter((m) => c.labels[m.id!] === 'fact')
          .map((m) => [m.id!, m.role === 'assistant' ? 'agent' : 'person']),
      );
      await tally(
        chats,
        [{ ...s, source_ref: [agentRef('vscode-chat'), `session:vscode-chat:${s.session_id}`] }],
        facts,
      );
    }
  return { coding, codingUngated, chats };
}

const share = (n: number, d: number) => (d ? (n / d).toFixed(3) : '—');

export function captureLines(name: string, t: CaptureTally): string[] {
  return [
    `${name}: ${t.sessions} sessions`,
    `  pending per 100 sessions: ${((t.pending / Math.max(1, t.sessions)) * 100).toFixed(1)} (target <= 20); stored per 100: ${((t.stored / Math.max(1, t.sessions)) * 100).toFixed(1)}; junk share of both: ${share(t.junk, t.pending + t.stored)}`,
    `  the person's facts kept: ${share(t.kept.person, t.facts.person)} (${t.kept.person} of ${t.facts.person}); the agent's findings kept: ${share(t.kept.agent, t.facts.agent)} (${t.kept.agent} of ${t.facts.agent})`,
  ];
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { sessions: { type: 'string', default: '300' } } });
  const { coding, codingUngated, chats } = await runCaptureEval(Number(values.sessions));
  for (const l of [
    ...captureLines('coding-agent sessions (generated)', coding),
    ...captureLines('  the same without the agent gate', codingUngated),
    ...captureLines('eval/data conversations, as captured chats', chats),
  ])
    console.log(l);
}

if (require.main === module) void main();
