/**
 * What a capture sends to the ingest path, from an agent's new messages: the conversation as one chat
 * session (the person's turns as `user`, the agent's as `assistant` under its name) and the agent's shell
 * commands as a terminal session in the contract's format (sidecar/shared/terminal.ts: `$ cmd` /
 * `exit N · output`, the output's head and tail only), so a failing command the agent then fixed becomes a
 * troubleshooting memory the way a person's terminal does. Other tool calls become one short line each
 * (`Edit src/app.ts`), grouped between two turns. Mnemo's own text is removed first (injected.ts); a turn
 * longer than {@link MAX_TURN_CHARS} (a pasted file, a log) keeps its head and tail with a note.
 */
import type { RawMessage, SessionInput, TerminalCommandRecord } from '../protocol';
import { agentRef, type CaptureSourceId } from '../shared/agentSources';
import { boundOutput, commandMessages } from '../shared/terminal';
import { cutText, cutTextStart } from '../shared/text';
import { isMnemoTool, stripInjected } from './injected';
import type { CapturedMessage } from './types';

/** The longest turn kept whole (characters); a longer one keeps its head and tail and says how much was cut. */
export const MAX_TURN_CHARS = 12_000;
/** Output kept per shell command of an agent (bytes, head and tail): the first error and the end, where results are; each kept byte is embedded as evidence. */
export const MAX_TOOL_OUTPUT_BYTES = 3072;

export interface BuiltSessions {
  sessions: SessionInput[];
  /** Pieces of Mnemo's own text recognized and left out. */
  injected: number;
  /** Messages that went into a session. */
  kept: number;
}

/** A long turn: its head and tail, with the number of characters cut between them. */
export function cutTurn(text: string, max = MAX_TURN_CHARS): string {
  if (text.length <= max) return text;
  const head = cutText(text, Math.floor(max * 0.7));
  const tail = cutTextStart(text, max - head.length);
  return `${head}\n… [${text.length - head.length - tail.length} characters cut] …\n${tail}`;
}

/**
 * A path inside the session's working folder, relative to it (`src/app.ts`, as the person thinks of it and
 * shorter to embed); a path elsewhere or any other target as it is.
 */
export function inFolder(target: string, cwd: string | undefined): string {
  const root = cwd?.replace(/[\\/]+$/, '');
  if (!root || !target.startsWith(root)) return target;
  const rest = target.slice(root.length);
  return /^[\\/][^\\/]/.test(rest) ? rest.slice(1) : target;
}

export interface SessionContext {
  source: CaptureSourceId;
  sessionId: string;
  projectId: string;
}

/** The chat and terminal sessions for new messages of one transcript (none when nothing is left to learn). */
export function buildSessions(messages: CapturedMessage[], ctx: SessionContext): BuiltSessions {
  const chat: RawMessage[] = [];
  const shell: (TerminalCommandRecord & { id: string })[] = [];
  let tools: string[] = [];
  let toolIds: string[] = [];
  let toolTime: string | undefined;
  let injected = 0;
  let kept = 0;
  const flushTools = () => {
    if (!tools.length) return;
    chat.push({
      role: 'tool',
      content: tools.join('; '),
      id: toolIds.length > 1 ? `${toolIds[0]}+${toolIds.length - 1}` : toolIds[0],
      ...(toolTime ? { timestamp: toolTime } : {}),
    });
    kept += tools.length;
    tools = [];
    toolIds = [];
    toolTime = undefined;
  };
  for (const m of messages) {
    if (m.role === 'tool') {
      const t = m.tool;
      if (!t || isMnemoTool(t.name)) {
        injected += t ? 1 : 0;
        continue;
      }
      if (t.command) {
        shell.push({
          id: m.id,
          command: cutText(t.command.replace(/\s+$/, ''), 2000),
          ...(t.exitCode !== undefined ? { exit_code: t.exitCode } : {}),
          output: boundOutput(stripInjected(t.output ?? '').text, MAX_TOOL_OUTPUT_BYTES),
          ...(m.timestamp ? { started_at: m.timestamp, ended_at: m.timestamp } : {}),
        });
        kept++;
        continue;
      }
      tools.push(`${t.name}${t.target ? ` ${inFolder(t.target, m.cwd)}` : ''}${t.failed ? ' (failed)' : ''}`);
      toolIds.push(m.id);
      toolTime ??= m.timestamp;
      continue;
    }
    const { text, removed } = stripInjected(m.text);
    injected += removed;
    if (!text) continue;
    flushTools();
    chat.push({
      role: m.role,
      content: cutTurn(text),
      id: m.id,
      ...(m.role !== 'user' && m.speaker ? { name: m.speaker } : {}),
      ...(m.timestamp ? { timestamp: m.timestamp } : {}),
    });
    kept++;
  }
  flushTools();
  const refs = [agentRef(ctx.source), `session:${ctx.source}:${ctx.sessionId}`];
  const sessions: SessionInput[] = [];
  if (chat.some((m) => m.role !== 'tool'))
    sessions.push({
      project_id: ctx.projectId,
      source_type: 'chat',
      messages: chat,
      source_ref: refs,
      session_id: `${ctx.source}:${ctx.sessionId}`,
    });
  if (shell.length)
    sessions.push({
      project_id: ctx.projectId,
      source_type: 'terminal',
      messages: commandMessages(shell),
      source_ref: refs,
      session_id: `${ctx.source}:${ctx.sessionId}:shell`,
    });
  return { sessions, injected, kept };
}
