/**
 * The terminal message format, once for both sides: the extension writes a captured command as `$ <cmd>`
 * (role user) and its result as `exit <code> · <output>` (role tool); the sidecar's terminal stage
 * (sidecar/pipeline/terminal.ts) reads them back with the same functions.
 */
import type { RawMessage, TerminalCommandRecord } from '../protocol';

const COMMAND = /^\$ (.+)$/s;
const RESULT = /^exit (-?\d+|unknown) · ?(.*)$/s;

/** The two messages of one command, ids `<session>:<i>:cmd` and `<session>:<i>:out`. */
export function terminalMessages(sessionId: string, records: TerminalCommandRecord[]): RawMessage[] {
  return records.flatMap((r, i): RawMessage[] => [
    {
      role: 'user',
      content: `$ ${r.command}`,
      id: `${sessionId}:${i}:cmd`,
      ...(r.started_at ? { timestamp: r.started_at } : {}),
    },
    {
      role: 'tool',
      content: `exit ${r.exit_code ?? 'unknown'} · ${r.output}`,
      id: `${sessionId}:${i}:out`,
      ...(r.ended_at ? { timestamp: r.ended_at } : {}),
    },
  ]);
}

/** The command of a `$ <cmd>` message (trimmed), or undefined when the text is not one. */
export function parseCommandMessage(content: string): string | undefined {
  return COMMAND.exec(content.trim())?.[1]?.trim();
}

/** The exit code (undefined when unknown) and output of an `exit <code> · <output>` message, or undefined when the text is not one. */
export function parseResultMessage(
  content: string,
): { exitCode: number | undefined; output: string } | undefined {
  const m = RESULT.exec(content.trim());
  if (!m) return undefined;
  return { exitCode: m[1] === 'unknown' ? undefined : Number(m[1]), output: m[2]!.trim() };
}
