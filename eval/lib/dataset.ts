/**
 * The shape of the recall eval set (eval/data/*.json), how to load it and how to check it. Each file is one
 * conversation: its sessions exactly as `mnemo/ingest/session` takes them, a label per turn, and the
 * questions with their evidence message ids.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IngestParams } from '../../sidecar/protocol';
import { answerParts, carries } from './carriers';

export type Category = 'single-hop' | 'multi-hop' | 'temporal' | 'preference';
export const CATEGORIES: readonly Category[] = ['single-hop', 'multi-hop', 'temporal', 'preference'];

/** fact: the turn states something durable (even if no question asks about it); junk: small talk, hedges, venting, reactions. */
export type TurnLabel = 'fact' | 'junk';

export interface Question {
  id: string;
  category: Category;
  question: string;
  /** The expected answer in words (for people reading results; scoring uses the evidence ids). */
  answer: string;
  /** Message ids of the turns that hold the answer. */
  evidence: string[];
  /** Tokens that must appear in the evidence turns (checked by {@link checkDataset}). */
  key: string[];
  /** Message ids of older turns whose value this question's evidence replaced (the question asks for the current value). */
  supersedes?: string[];
  /**
   * Message ids of the other turns that carry the answer's key tokens on purpose: an assistant restating it,
   * a hard negative in the question's words. Every turn outside the evidence and `supersedes` that carries
   * the answer must be listed here ({@link checkDataset}).
   */
  near_miss?: string[];
}

export interface Conversation {
  id: string;
  lang: 'en' | 'zh';
  topic: string;
  speakers: string[];
  /** One project per conversation: every session's `project_id` is the conversation id. */
  sessions: IngestParams[];
  labels: Record<string, TurnLabel>;
  questions: Question[];
}

export const DATA_DIR = join(__dirname, '..', 'data');
/**
 * The held-out split (issue 37): conversations written by hand from the briefs in eval/heldout/BRIEFS.md,
 * without reading the rules, lexicons, generator or generated set. Scored apart and never tuned on.
 */
export const HELDOUT_DIR = join(__dirname, '..', 'heldout');

const jsonFiles = (dir: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();

/**
 * The sha256 of each conversation file of a folder and of their concatenation in file-name order: printed
 * and recorded with the held-out scores, so an edit of the split shows in every later result.
 */
export function hashSplit(dir: string): { sha256: string; files: { file: string; sha256: string }[] } {
  const all = createHash('sha256');
  const files = jsonFiles(dir).map((file) => {
    const bytes = readFileSync(join(dir, file));
    all.update(bytes);
    return { file, sha256: createHash('sha256').update(bytes).digest('hex') };
  });
  return { sha256: all.digest('hex'), files };
}

export function loadDataset(dir = DATA_DIR): Conversation[] {
  const files = jsonFiles(dir);
  if (!files.length)
    throw new Error(`No conversations in ${dir}: run "npx tsx eval/generate.ts" to write them.`);
  return files.map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Conversation);
}

/** Every problem with the set, one sentence each (empty when it is sound). */
export function checkDataset(convs: Conversation[]): string[] {
  const problems: string[] = [];
  const seenIds = new Set<string>();
  const seenQ = new Set<string>();
  for (const c of convs) {
    const byId = new Map<string, { content: string; timestamp: string }>();
    if (c.sessions.length < 3) problems.push(`${c.id}: ${c.sessions.length} sessions, at least 3 needed.`);
    let prev = '';
    for (const s of c.sessions) {
      if (s.project_id !== c.id)
        problems.push(`${c.id}: session ${s.session_id} has project_id ${s.project_id}.`);
      for (const m of s.messages) {
        if (!m.id || !m.name || !m.content || typeof m.timestamp !== 'string')
          problems.push(`${c.id}: a message lacks id, name, content or timestamp.`);
        if (seenIds.has(m.id!)) problems.push(`${c.id}: message id ${m.id} is used twice.`);
        seenIds.add(m.id!);
        if (String(m.timestamp) <= prev)
          problems.push(`${c.id}: message ${m.id} is not later than the one before.`);
        prev = String(m.timestamp);
        if (!c.labels[m.id!]) problems.push(`${c.id}: message ${m.id} has no label.`);
        byId.set(m.id!, { content: m.content, timestamp: String(m.timestamp) });
      }
    }
    const first = Date.parse(c.sessions[0]!.messages[0]!.timestamp as string);
    const last = Date.parse(c.sessions[c.sessions.length - 1]!.messages[0]!.timestamp as string);
    if (last - first < 14 * 86_400_000) problems.push(`${c.id}: sessions span less than two weeks.`);
    for (const qq of c.questions) {
      if (seenQ.has(qq.id)) problems.push(`question id ${qq.id} is used twice.`);
      seenQ.add(qq.id);
      if (!CATEGORIES.includes(qq.category)) problems.push(`${qq.id}: unknown category ${qq.category}.`);
      const ev = qq.evidence.map((id) => byId.get(id));
      if (!qq.evidence.length || ev.some((e) => !e)) {
        problems.push(`${qq.id}: evidence ${qq.evidence.join(', ')} is not a message of ${c.id}.`);
        continue;
      }
      if (qq.category === 'multi-hop' && new Set(qq.evidence).size < 2)
        problems.push(`${qq.id}: a multi-hop question needs at least two evidence turns.`);
      const texts = ev.map((e) => e!.content.toLowerCase());
      for (const k of qq.key) {
        if (!texts.some((t) => t.includes(k.toLowerCase())))
          problems.push(`${qq.id}: "${k}" is in none of its evidence turns.`);
      }
      texts.forEach((t, i) => {
        if (!qq.key.some((k) => t.includes(k.toLowerCase())))
          problems.push(`${qq.id}: evidence ${qq.evidence[i]} holds none of its key tokens.`);
      });
      for (const id of qq.evidence)
        if (c.labels[id] !== 'fact')
          problems.push(`${qq.id}: evidence ${id} is labelled ${c.labels[id]}, not fact.`);
      const parts = answerParts(
        ev.map((e) => e!.content),
        qq.key,
      );
      const allowed = new Set([...qq.evidence, ...(qq.supersedes ?? []), ...(qq.near_miss ?? [])]);
      for (const [id, m] of byId)
        if (!allowed.has(id) && carries(m.content, parts))
          problems.push(
            `${qq.id}: turn ${id} carries the answer ("${qq.key.join('|')}") but is neither evidence nor a recorded near miss.`,
          );
      for (const id of qq.near_miss ?? []) {
        if (!byId.has(id)) problems.push(`${qq.id}: near miss ${id} is not a message of ${c.id}.`);
        if (qq.evidence.includes(id)) problems.push(`${qq.id}: near miss ${id} is also evidence.`);
      }
      for (const old of qq.supersedes ?? []) {
        const o = byId.get(old);
        if (!o) problems.push(`${qq.id}: superseded turn ${old} is not a message of ${c.id}.`);
        else if (!ev.every((e) => e!.timestamp > o.timestamp))
          problems.push(`${qq.id}: its evidence is not newer than the superseded turn ${old}.`);
        else if (qq.evidence.includes(old))
          problems.push(`${qq.id}: the superseded turn ${old} is also evidence.`);
      }
    }
  }
  return problems;
}

const spread = (xs: number[]): { min: number; median: number; max: number } => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0] ?? 0, median: s[Math.floor(s.length / 2)] ?? 0, max: s[s.length - 1] ?? 0 };
};

/** Counts that describe the set (for the docs and the report). */
export function describeDataset(convs: Conversation[]): Record<string, unknown> {
  const turns = convs.flatMap((c) => c.sessions.flatMap((s) => s.messages));
  const byCat = Object.fromEntries(
    CATEGORIES.map((k) => [k, convs.flatMap((c) => c.questions).filter((qq) => qq.category === k).length]),
  );
  const labels = convs.flatMap((c) => Object.values(c.labels));
  return {
    conversations: convs.length,
    chinese_conversations: convs.filter((c) => c.lang === 'zh').length,
    sessions: convs.reduce((n, c) => n + c.sessions.length, 0),
    turns: turns.length,
    fact_turns: labels.filter((l) => l === 'fact').length,
    junk_turns: labels.filter((l) => l === 'junk').length,
    questions: convs.reduce((n, c) => n + c.questions.length, 0),
    questions_by_category: byCat,
    chinese_questions: convs.filter((c) => c.lang === 'zh').reduce((n, c) => n + c.questions.length, 0),
    updated_fact_questions: convs.flatMap((c) => c.questions).filter((qq) => qq.supersedes?.length).length,
    turns_per_conversation: spread(convs.map((c) => c.sessions.reduce((n, s) => n + s.messages.length, 0))),
    sessions_per_conversation: spread(convs.map((c) => c.sessions.length)),
    months_per_conversation: spread(
      convs.map((c) =>
        Math.round(
          (Date.parse(String(c.sessions.at(-1)!.messages[0]!.timestamp)) -
            Date.parse(String(c.sessions[0]!.messages[0]!.timestamp))) /
            (30.4 * 86_400_000),
        ),
      ),
    ),
    questions_with_near_misses: convs.flatMap((c) => c.questions).filter((qq) => qq.near_miss?.length).length,
    near_miss_turns: new Set(convs.flatMap((c) => c.questions.flatMap((qq) => qq.near_miss ?? []))).size,
    most_repeats_of_one_line: Math.max(
      ...convs.map((c) => {
        const n = new Map<string, number>();
        for (const m of c.sessions.flatMap((s) => s.messages)) n.set(m.content, (n.get(m.content) ?? 0) + 1);
        return Math.max(...n.values());
      }),
    ),
    multi_evidence_questions: convs.flatMap((c) => c.questions).filter((qq) => qq.evidence.length > 1).length,
  };
}
