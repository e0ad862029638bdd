/**
 * The vscode-free half of terminal capture: cleaning and bounding output, and turning a terminal's
 * executions into the session messages the sidecar learns from (`$ <cmd>` from the user, then
 * `exit <code> · <output>` from the tool, in the contract's format: sidecar/shared/terminal.ts). Unit-tested in
 * test/unit/terminalSession.test.ts.
 */
import type { RawMessage } from '../../sidecar/protocol';
import { terminalMessages } from '../../sidecar/shared/terminal';

export { boundOutput, stripAnsi } from '../../sidecar/shared/terminal';

export interface Execution {
  command: string;
  cwd?: string;
  exitCode: number | undefined;
  startedAt: number;
  endedAt: number;
  output: string;
}

/** The session's messages in the contract's terminal format (sidecar/shared/terminal.ts): `$ <cmd>` (user, at start) and `exit <code> · <output>` (tool, at end). Whether a failure was fixed is the sidecar's call. */
export function sessionMessages(sessionId: string, executions: Execution[]): RawMessage[] {
  return terminalMessages(
    sessionId,
    executions.map((e) => ({
      command: e.command,
      exit_code: e.exitCode,
      output: e.output,
      started_at: new Date(e.startedAt).toISOString(),
      ended_at: new Date(e.endedAt).toISOString(),
    })),
  );
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
