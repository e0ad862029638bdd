/**
 * The vscode-free half of terminal capture: cleaning and bounding output, and turning a terminal's
 * executions into the session messages the sidecar learns from (`$ <cmd>` from the user, then
 * `exit <code> · <output>` from the tool; sidecar/pipeline/terminal.ts reads that shape). Unit-tested in
 * test/unit/terminalSession.test.ts.
 */
import type { RawMessage } from '../../sidecar/pipeline/types';

const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[PX^_][^\u001b]*\u001b\\|\u001b[@-Z\\-_]|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** Removes ANSI escapes (CSI, OSC incl. shell-integration marks), control characters, and resolves `\r` overwrites. */
export function stripAnsi(text: string): string {
  return text
    .replace(ANSI, '')
    .split('\n')
    .map((line) => {
      const parts = line.split('\r').filter((p) => p.length);
      return parts.length ? parts[parts.length - 1] : '';
    })
    .join('\n');
}

/** Keeps the head and the tail of long output (errors tend to be at the end). */
export function boundOutput(text: string, maxBytes: number): string {
  const clean = stripAnsi(text).trim();
  if (Buffer.byteLength(clean, 'utf8') <= maxBytes) return clean;
  const head = Math.floor(maxBytes * 0.25);
  const tail = maxBytes - head - 40;
  const h = Buffer.from(clean, 'utf8').subarray(0, head).toString('utf8').replace(/\uFFFD+$/, '');
  const t = Buffer.from(clean, 'utf8')
    .subarray(Buffer.byteLength(clean, 'utf8') - tail)
    .toString('utf8')
    .replace(/^\uFFFD+/, '');
  return `${h}\n… [output truncated] …\n${t}`;
}

export interface Execution {
  command: string;
  cwd?: string;
  exitCode: number | undefined;
  startedAt: number;
  endedAt: number;
  output: string;
}

function tokens(command: string): string[] {
  return command.trim().split(/\s+/).filter(Boolean);
}

/** Same program and mostly the same words (e.g. `npm test` -> `npm test -- --runInBand`). */
export function similarCommands(a: string, b: string): boolean {
  const ta = tokens(a);
  const tb = tokens(b);
  if (!ta.length || !tb.length) return false;
  const prog = (t: string[]): string => (t[0] === 'sudo' && t.length > 1 ? t[1] : t[0]);
  if (prog(ta) !== prog(tb)) return false;
  const sa = new Set(ta);
  const sb = new Set(tb);
  const inter = [...sa].filter((x) => sb.has(x)).length;
  const union = new Set([...sa, ...sb]).size;
  return inter / union >= 0.4 || (ta.length > 1 && tb.length > 1 && ta[1] === tb[1]);
}

/** A failing command later followed by a successful similar one. */
export function isTroubleshooting(executions: Execution[]): boolean {
  for (let i = 0; i < executions.length; i++) {
    const failed = executions[i];
    if (failed.exitCode === undefined || failed.exitCode === 0) continue;
    for (let j = i + 1; j < executions.length; j++) {
      const later = executions[j];
      if (later.exitCode === 0 && similarCommands(failed.command, later.command)) return true;
    }
  }
  return false;
}

/** The session's messages: `$ <cmd>` (user, at start) and `exit <code> · <output>` (tool, at end). */
export function sessionMessages(sessionId: string, executions: Execution[]): RawMessage[] {
  const messages: RawMessage[] = [];
  executions.forEach((e, i) => {
    messages.push({ role: 'user', content: `$ ${e.command}`, id: `${sessionId}:${i}:cmd`, timestamp: new Date(e.startedAt).toISOString() });
    messages.push({
      role: 'tool',
      content: `exit ${e.exitCode ?? 'unknown'} · ${e.output}`,
      id: `${sessionId}:${i}:out`,
      timestamp: new Date(e.endedAt).toISOString(),
    });
  });
  return messages;
}

/** The commands of a chained command line (`cd src && npm test; make`), split outside quotes. */
export function splitCommandChain(line: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      if (ch === '\\' && quote === '"' && i + 1 < line.length) {
        current += ch + line[++i];
        continue;
      }
      if (ch === quote) quote = undefined;
      current += ch;
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      current += ch;
      continue;
    }
    if (ch === '\\' && i + 1 < line.length) {
      current += ch + line[++i];
      continue;
    }
    const two = line.slice(i, i + 2);
    if (two === '&&' || two === '||') {
      parts.push(current);
      current = '';
      i++;
      continue;
    }
    if (ch === ';' || ch === '|' || ch === '\n') {
      parts.push(current);
      current = '';
      continue;
    }
    current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter(Boolean);
}

/**
 * Whether a command line stays out of capture (`mnemo.capture.terminal.excludePatterns`). A pattern anchored
 * at the start (`^…`, the trivial commands) is tested against each command of a chain, and the line is left
 * out only when every command is trivial: `cd src && npm test` is captured, `cd src && ls` is not. Any other
 * pattern (a password, `token=`) is tested against the whole line and leaves it out wherever it matches.
 */
export function isExcludedCommand(line: string, patterns: readonly RegExp[]): boolean {
  const anchored = patterns.filter((r) => r.source.startsWith('^'));
  const anywhere = patterns.filter((r) => !r.source.startsWith('^'));
  if (anywhere.some((r) => r.test(line))) return true;
  if (anchored.length === 0) return false;
  const commands = splitCommandChain(line);
  return commands.length > 0 && commands.every((c) => anchored.some((r) => r.test(c)));
}
