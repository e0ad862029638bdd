/**
 * OpenAI Codex (CLI, IDE extension and app share one engine): rollouts in
 * `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread-id>.jsonl` (`CODEX_HOME` defaults to `~/.codex`;
 * `codex archive` moves them to `archived_sessions/`, where old ones may be zstd-compressed: those are not
 * read). Append-only, one `{timestamp, type, payload}` a line (newer builds add `ordinal`): `session_meta`
 * first (id, cwd, git, fork/parent ids), `turn_context` per turn (cwd), `response_item` (messages with
 * `input_text`/`output_text` parts; `function_call` with JSON-string `arguments` and its
 * `function_call_output` by `call_id`; `local_shell_call`, `custom_tool_call`…), and `event_msg` events that
 * mirror the messages (not read twice). Items carry no stable id: a message's id is a hash of its role,
 * time and text, a tool call's is its `call_id`. The context Codex injects as user messages (environment,
 * AGENTS.md instructions) is not the person's words and is left out.
 */
import { createHash } from 'node:crypto';
import { basename, join } from 'node:path';
import type { SourceAdapter, SourceEnv, TranscriptFile } from '../types';
import { firstLines, parseJson, walkFiles } from '../read';
import { exitCodeIn, obj, readJsonl, shellJoin, skip, str, textOf, toolCall, utc } from './common';
import type { TranscriptRead } from './common';

const SPEAKER = 'Codex';

/** Record types that carry nothing to learn beyond what `response_item` has (known, not counted as skipped). */
const QUIET_TYPES = new Set([
  'event_msg',
  'compacted',
  'inter_agent_communication',
  'inter_agent_communication_metadata',
  'world_state',
  'token_usage_record',
  'security_risk_score',
  'retained_context',
  'realtime_item',
]);
const QUIET_ITEMS = new Set([
  'reasoning',
  'compaction',
  'context_compaction',
  'image_generation_call',
  'tool_search_call',
  'tool_search_output',
  'additional_tools',
  'agent_message',
]);
/** Shell tools of Codex, by the name of the function call. */
const SHELL_TOOLS = new Set([
  'shell',
  'container.exec',
  'exec_command',
  'local_shell',
  'unified_exec',
  'shell_command',
]);
/** User messages Codex writes itself: the turn's environment, the instruction files, aborted-turn notes. */
const INJECTED_USER =
  /^\s*(?:<environment_context>|<user_instructions>|<INSTRUCTIONS>|# AGENTS\.md instructions|<turn_aborted>|<user_shell_command>|<subagent_notification>)/;

function home(env: SourceEnv): string {
  return env.env.CODEX_HOME || join(env.home, '.codex');
}

async function discover(env: SourceEnv): Promise<TranscriptFile[]> {
  const isRollout = (n: string) =>
    n.startsWith('rollout-') && (n.endsWith('.jsonl') || n.endsWith('.jsonl.zst'));
  const files = [
    ...(await walkFiles(join(home(env), 'sessions'), isRollout, 3)),
    ...(await walkFiles(join(home(env), 'archived_sessions'), isRollout, 0)),
  ];
  return files.map((path) => {
    const name = basename(path).replace(/\.jsonl(\.zst)?$/, '');
    const id = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i.exec(name)?.[1] ?? name;
    return { source: 'codex', path, sessionId: id, appendOnly: !path.endsWith('.zst') };
  });
}

async function cwdOf(f: TranscriptFile): Promise<string | undefined> {
  if (f.path.endsWith('.zst')) return undefined;
  for (const line of await firstLines(f.path)) {
    const rec = obj(parseJson(line));
    const cwd = str(obj(rec?.payload)?.cwd);
    if (cwd && (rec?.type === 'session_meta' || rec?.type === 'turn_context')) return cwd;
  }
  return undefined;
}

function idOf(role: string, at: string | undefined, text: string): string {
  return `cx-${createHash('sha1')
    .update(`${role}\u0000${at ?? ''}\u0000${text}`)
    .digest('hex')
    .slice(0, 16)}`;
}

/** A function call's output: plain text, structured content items, or (forks) `{content, success}`; plus its exit code. */
function outputOf(raw: unknown): { text: string; exitCode?: number } {
  const o = obj(raw);
  let text = typeof raw === 'string' ? raw : o ? (str(o.content) ?? textOf(o.content)) : textOf(raw);
  // Older builds: the shell tool's output is a JSON string {output, metadata: {exit_code}}.
  const parsed = obj(parseJson(text));
  if (parsed && typeof parsed.output === 'string') {
    const code = obj(parsed.metadata)?.exit_code;
    text = parsed.output;
    if (typeof code === 'number') return { text, exitCode: code };
  }
  const code = exitCodeIn(text);
  return code === undefined ? { text } : { text, exitCode: code };
}

/** One line of a rollout: the session's head and turns (folder, id, sub-agent), a message, a tool call or its output. */
function record(rec: Record<string, unknown>, start: number, r: TranscriptRead): void {
  const { list, skipped } = r;
  const type = str(rec.type);
  const payload = obj(rec.payload);
  const timestamp = utc(rec.timestamp);
  if (type === 'session_meta' || type === 'turn_context') {
    r.cwd = str(payload?.cwd) ?? r.cwd;
    if (type === 'session_meta') {
      r.sessionId = str(payload?.id) ?? r.sessionId;
      const source = payload?.source;
      r.sub ||= !!str(payload?.parent_thread_id) || (!!obj(source) && 'subagent' in obj(source)!);
    }
    return;
  }
  if (type !== 'response_item') {
    if (!type || !QUIET_TYPES.has(type)) skip(skipped, `unknown record type "${String(type)}"`);
    return;
  }
  if (!payload) {
    skip(skipped, 'a response item without payload');
    return;
  }
  const { cwd, sub } = r;
  const base = { timestamp, startOffset: start, ...(cwd ? { cwd } : {}) };
  const item = str(payload.type);
  if (item === 'message') {
    const role = str(payload.role);
    const text = textOf(payload.content).trim();
    if (!text || (role !== 'user' && role !== 'assistant')) return;
    if (role === 'user' && INJECTED_USER.test(text)) return;
    const id = str(payload.id) ?? idOf(role, str(rec.timestamp), text);
    if (role === 'assistant')
      list.add({ id, role: 'assistant', speaker: sub ? `${SPEAKER} (sub-agent)` : SPEAKER, text, ...base });
    else if (sub) list.add({ id, role: 'assistant', speaker: `${SPEAKER} (task)`, text, ...base });
    else list.add({ id, role: 'user', text, ...base });
    return;
  }
  if (
    item === 'function_call' ||
    item === 'custom_tool_call' ||
    item === 'local_shell_call' ||
    item === 'web_search_call'
  ) {
    const id = str(payload.call_id) ?? str(payload.id);
    if (!id) return;
    const name = str(payload.name) ?? item.replace(/_call$/, '');
    let input: unknown =
      item === 'custom_tool_call'
        ? { description: str(payload.input)?.split('\n')[0] }
        : parseJson(str(payload.arguments) ?? '');
    if (item === 'local_shell_call') input = { command: obj(payload.action)?.command };
    if (item === 'web_search_call') input = { query: str(obj(payload.action)?.query) };
    const tool =
      SHELL_TOOLS.has(name) || item === 'local_shell_call'
        ? toolCall(name, input)
        : toolCall(name, input, []);
    if (Array.isArray(obj(input)?.command) && !tool.command)
      tool.command = shellJoin(obj(input)!.command as string[]);
    const done =
      item === 'web_search_call' || (item === 'local_shell_call' && str(payload.status) === 'completed');
    list.add({ id, role: 'tool', speaker: SPEAKER, text: '', tool, ...base, open: !done });
    return;
  }
  if (item === 'function_call_output' || item === 'custom_tool_call_output') {
    const id = str(payload.call_id);
    const call = id ? list.get(id) : undefined;
    const { text, exitCode } = outputOf(payload.output);
    if (!id) return;
    const tool = {
      ...(call?.tool ?? { name: 'tool' }),
      output: text,
      ...(exitCode !== undefined ? { exitCode, failed: exitCode !== 0 } : {}),
    };
    if (call) {
      call.tool = tool;
      call.open = false;
    } else list.add({ id, role: 'tool', speaker: SPEAKER, text: '', tool, ...base });
    return;
  }
  if (!item || !QUIET_ITEMS.has(item)) skip(skipped, `unknown response item "${String(item)}"`);
}

export const codex: SourceAdapter = {
  id: 'codex',
  speaker: SPEAKER,
  roots: (env) => [join(home(env), 'sessions'), join(home(env), 'archived_sessions')],
  discover,
  cwdOf,
  read: async (f, offset, state, opts) =>
    f.path.endsWith('.zst')
      ? { messages: [], skipped: { 'a zstd-compressed archived rollout (not read)': 1 } }
      : readJsonl(f.path, offset, state, opts, record),
};

/** The rollout of a thread (Codex's `notify` names the thread, not the file). */
export async function rolloutOfThread(env: SourceEnv, threadId: string): Promise<TranscriptFile | undefined> {
  return (await discover(env)).find((f) => f.sessionId === threadId && f.appendOnly);
}
