/**
 * The terminal stage (after redact, beside the rules): a terminal session arrives as `$ <command>` (user)
 * and `exit <code> · <output>` (tool) messages (the format of sidecar/shared/terminal.ts). This is the
 * one place that decides whether a failure was fixed; the extension only records what ran. Raw commands and their output are not facts; what is
 * worth remembering is a failing command followed by the command that fixed it. That pair becomes one
 * troubleshooting candidate: what failed, how (exit code and the first error line), and what fixed it.
 */
import type { SourceType } from '../model';
import { errorLine, parseCommandMessage, parseResultMessage } from '../shared/terminal';
import type { Candidate, Dropped, NormalizedMessage } from './types';
import { cutText } from '../shared/text';

export interface Execution {
  command: string;
  exitCode: number | undefined;
  output: string;
  commandId: string;
  resultId?: string;
}

/** Pairs `$ cmd` messages with the `exit N · output` that follows them. */
export function parseExecutions(messages: NormalizedMessage[]): Execution[] {
  const out: Execution[] = [];
  for (const m of messages) {
    const command = m.role === 'user' ? parseCommandMessage(m.content) : undefined;
    if (command !== undefined) {
      out.push({ command, exitCode: undefined, output: '', commandId: m.id });
      continue;
    }
    const res = m.role === 'tool' ? parseResultMessage(m.content) : undefined;
    const last = out[out.length - 1];
    if (res && last && last.resultId === undefined) {
      last.exitCode = res.exitCode;
      last.output = res.output;
      last.resultId = m.id;
    }
  }
  return out;
}

/** True when the session looks like terminal capture (most messages are commands or results). */
export function isTerminalSession(messages: NormalizedMessage[]): boolean {
  if (messages.length === 0) return false;
  const shaped = messages.filter(
    (m) =>
      (m.role === 'user' && parseCommandMessage(m.content) !== undefined) ||
      (m.role === 'tool' && parseResultMessage(m.content) !== undefined),
  );
  return shaped.length >= Math.ceil(messages.length * 0.8);
}

/** Commands that only look around; they are never the fix. */
const TRIVIAL =
  /^\s*(ls|ll|la|cd|pwd|clear|cat|less|more|head|tail|echo|history|which|whoami|git (status|diff|log|show))\b/;

function program(command: string): string {
  const words = command.split(/\s+/).filter((w) => !/^(sudo|env|time|nohup)$/.test(w) && !/^\w+=/.test(w));
  return words
    .slice(
      0,
      words[0] &&
        /^(bash|sh|node|python3?|npx|npm|pnpm|yarn|go|cargo|make|docker|kubectl|git)$/.test(words[0])
        ? 2
        : 1,
    )
    .join(' ');
}

/**
 * The commands of a chain (`cd app && ./flash.sh --port 5020`, `a; b`, `a || b`), outside quotes; the
 * ones that only look around or move (`cd`, `ls`) are left out unless nothing else is there.
 */
function chainParts(command: string): string[] {
  const parts: string[] = [];
  let cur = '';
  let quote = '';
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    if (quote) {
      if (ch === quote) quote = '';
      cur += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      cur += ch;
    } else if (ch === ';' || ((ch === '&' || ch === '|') && command[i + 1] === ch)) {
      parts.push(cur.trim());
      cur = '';
      if (ch !== ';') i++;
    } else cur += ch;
  }
  parts.push(cur.trim());
  const all = parts.filter(Boolean);
  const doing = all.filter((p) => !TRIVIAL.test(p));
  return doing.length ? doing : all;
}

/**
 * Whether a command that passed looks like the fix of one that failed: the same program run again with
 * much the same words, compared command by command across both chains — the failing `cd app &&
 * ./flash.sh --port 5020` is fixed by `./flash.sh --port 502`, the failing `npm run migrate` by
 * `docker compose up -d db && npm run migrate`.
 */
function fixes(passed: string, failed: string): boolean {
  const tried = chainParts(failed);
  return chainParts(passed).some((b) =>
    tried.some((a) => program(a) === program(b) && similarity(a, b) >= 0.3),
  );
}

/** Token overlap (Jaccard) of two commands. */
function similarity(a: string, b: string): number {
  const ta = new Set(a.split(/\s+/));
  const tb = new Set(b.split(/\s+/));
  const inter = [...ta].filter((t) => tb.has(t)).length;
  return inter / Math.max(1, new Set([...ta, ...tb]).size);
}

function shorten(s: string, n: number): string {
  return s.length > n ? `${cutText(s, n - 1)}…` : s;
}

/**
 * Troubleshooting candidates from a terminal session: each failing command followed (later in the same
 * session) by a successful command of the same program that looks like its fix, command by command across
 * chains ({@link fixes}). Every other command and
 * output is dropped with a reason.
 */
export function terminalCandidates(
  messages: NormalizedMessage[],
  sourceType: SourceType,
): { candidates: Candidate[]; dropped: Dropped[] } {
  const runs = parseExecutions(messages);
  const candidates: Candidate[] = [];
  const used = new Set<number>();
  for (let i = 0; i < runs.length; i++) {
    const failed = runs[i];
    if (failed.exitCode === undefined || failed.exitCode === 0 || used.has(i)) continue;
    let fix = -1;
    for (let j = i + 1; j < runs.length; j++) {
      const r = runs[j];
      if (r.exitCode !== 0) continue;
      if (fixes(r.command, failed.command)) {
        fix = j;
        break;
      }
    }
    if (fix < 0) continue;
    const f = runs[fix];
    // What ran successfully in between is usually the real fix (npm install, a config edit command).
    const stepIdx = runs
      .map((_, k) => k)
      .filter((k) => k > i && k < fix && runs[k].exitCode === 0 && !TRIVIAL.test(runs[k].command));
    used.add(i).add(fix);
    stepIdx.forEach((k) => used.add(k));
    const why = errorLine(failed.output);
    const head = `\`${shorten(failed.command, 120)}\` failed (exit ${failed.exitCode}${why ? `: ${why}` : ''})`;
    const text = stepIdx.length
      ? `${head}; fixed by ${stepIdx.map((k) => `\`${shorten(runs[k].command, 100)}\``).join(', ')}, then \`${shorten(f.command, 100)}\` passed.`
      : f.command === failed.command
        ? `${head}; \`${shorten(f.command, 120)}\` passed on a later retry.`
        : `${head}; \`${shorten(f.command, 120)}\` fixed it.`;
    const ids = [failed, ...stepIdx.map((k) => runs[k]), f]
      .flatMap((r) => [r.commandId, r.resultId])
      .filter((x): x is string => !!x);
    candidates.push({
      text,
      category: 'instruction',
      source_type: sourceType === 'terminal' ? 'troubleshooting_log' : sourceType,
      is_actionable: true,
      source_ref: [...ids.map((id) => `msg:${id}`), `cmd:${cutText(f.command, 200)}`],
      message_ids: ids,
      reason: `rule:terminal-fix(${program(failed.command)} exit ${failed.exitCode} -> exit 0)`,
      fix: stepIdx.length ? 'steps' : f.command === failed.command ? 'retry' : 'changed',
      score: 0,
      confidence: 0,
      pending: false,
    });
  }
  const dropped: Dropped[] = runs
    .filter((_, i) => !used.has(i))
    .map((r) => ({
      text: `$ ${r.command}`,
      reason:
        r.exitCode === undefined
          ? 'drop:command-no-result'
          : r.exitCode === 0
            ? 'drop:command-ok-no-lesson'
            : 'drop:command-failed-unfixed',
      message_id: r.commandId,
    }));
  return { candidates, dropped };
}
