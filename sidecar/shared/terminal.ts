/**
 * The terminal message format, once for both sides: the extension writes a captured command as `$ <cmd>`
 * (role user) and its result as `exit <code> · <output>` (role tool); the sidecar's terminal stage
 * (sidecar/pipeline/terminal.ts) reads them back with the same functions. Output is cleaned and bounded
 * here too ({@link boundOutput}), for the terminal and for the shell commands of captured agent sessions.
 */
import type { RawMessage, TerminalCommandRecord } from '../protocol';
import { cutText } from './text';

const COMMAND = /^\$ (.+)$/s;
const RESULT = /^exit (-?\d+|unknown) · ?(.*)$/s;

/** The two messages of one command, ids `<session>:<i>:cmd` and `<session>:<i>:out`. */
export function terminalMessages(sessionId: string, records: TerminalCommandRecord[]): RawMessage[] {
  return commandMessages(records.map((r, i) => ({ ...r, id: `${sessionId}:${i}` })));
}

/** The two messages of each command, ids `<id>:cmd` and `<id>:out` (an agent's tool call keeps its own id). */
export function commandMessages(records: (TerminalCommandRecord & { id: string })[]): RawMessage[] {
  return records.flatMap((r): RawMessage[] => [
    {
      role: 'user',
      content: `$ ${r.command}`,
      id: `${r.id}:cmd`,
      ...(r.started_at ? { timestamp: r.started_at } : {}),
    },
    {
      role: 'tool',
      content: `exit ${r.exit_code ?? 'unknown'} · ${r.output}`,
      id: `${r.id}:out`,
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

const ANSI =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[PX^_][^\u001b]*\u001b\\|\u001b[@-Z\\-_]|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

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

/**
 * Keeps the head and the tail of long output (errors tend to be at the end), within `maxBytes` of UTF-8
 * plus the note that says how much was cut.
 */
export function boundOutput(text: string, maxBytes: number): string {
  const clean = stripAnsi(text).trim();
  const bytes = Buffer.byteLength(clean, 'utf8');
  if (bytes <= maxBytes) return clean;
  const head = Math.floor(maxBytes * 0.25);
  const tail = maxBytes - head - 40;
  const buf = Buffer.from(clean, 'utf8');
  const h = buf
    .subarray(0, head)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
  const t = buf
    .subarray(bytes - tail)
    .toString('utf8')
    .replace(/^\uFFFD+/, '');
  return `${h}\n… [output truncated: ${bytes - head - tail} bytes cut] …\n${t}`;
}

/** The first line of output that looks like an error, else the last non-empty line. */
export function errorLine(output: string): string {
  const lines = output
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const err = lines.find((l) =>
    /error|fail|refused|denied|not found|cannot|can't|unable|timeout|timed out|exception|错误|失败|拒绝|超时/i.test(
      l,
    ),
  );
  return cutText(err ?? lines[lines.length - 1] ?? '', 160);
}
