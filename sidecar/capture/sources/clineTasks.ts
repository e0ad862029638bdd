/**
 * The task folders Cline and its fork Roo Code share: `tasks/<task id>/ui_messages.json` (older Cline:
 * `claude_messages.json`), rewritten whole on every save, an array of `ClineMessage`
 * `{ts, type: ask|say, ask?, say?, text, partial?}` — `ts` is unique within its task and is the message's
 * id; `partial` marks a message still streaming. The person's words are `say: task` and `say:
 * user_feedback`; the agent's `say: text` and `completion_result`; `command` + `command_output` is a shell
 * command with its output; `tool` and MCP messages carry JSON describing the call. Both adapters read it
 * with this one function; only where the tasks are and which folder each belongs to differ.
 */
import { join } from 'node:path';
import type { CapturedMessage, ReadOptions, ReadResult, ToolRecord, TranscriptFile } from '../types';
import { listDir, parseJson, readWholeFile } from '../read';
import { arr, obj, skip, str, toolCall, utc } from './common';

/** `say`/`ask` kinds that carry no conversation (known, not counted as skipped). */
const QUIET = new Set([
  'api_req_started',
  'api_req_finished',
  'api_req_retried',
  'api_req_deleted',
  'api_req_failed',
  'api_req_retry_delayed',
  'reasoning',
  'error',
  'error_retry',
  'diff_error',
  'user_feedback_diff',
  'shell_integration_warning',
  'shell_integration_warning_with_suggestion',
  'checkpoint_created',
  'checkpoint_saved',
  'completion_result_pending',
  'resume_task',
  'resume_completed_task',
  'mistake_limit_reached',
  'auto_approval_max_req_reached',
  'deleted_api_reqs',
  'clineignore_error',
  'rooignore_error',
  'browser_action',
  'browser_action_launch',
  'browser_action_result',
  'condense_context',
  'condense_context_error',
  'codebase_search_result',
  'image',
  'task_progress',
  'hook_status',
  'info',
  'load_mcp_documentation',
  'generate_explanation',
  'new_task_started',
  'subtask_result',
  'use_subagents',
  'subagent',
  'report_bug',
  'new_task',
  'condense',
  'summarize_task',
  'act_mode_respond',
  'plan_mode_respond',
  'too_many_tools_warning',
  'command_permission_denied',
  'text_emoji',
  'user_edit_todos',
  'api_req_rate_limit_wait',
  'mcp_server_request_started',
]);

/** Task folders with a message file, as transcript files (the folder's name is the task id). */
export async function taskFiles(
  source: 'cline' | 'roo-code',
  base: string,
  infoOf: (id: string) => Promise<{ cwd?: string; parent?: string }>,
): Promise<TranscriptFile[]> {
  const out: TranscriptFile[] = [];
  const tasks = join(base, 'tasks');
  for (const e of await listDir(tasks)) {
    if (!e.dir) continue;
    const names = (await listDir(join(tasks, e.name))).map((x) => x.name);
    const file = names.includes('ui_messages.json')
      ? 'ui_messages.json'
      : names.includes('claude_messages.json')
        ? 'claude_messages.json'
        : undefined;
    if (!file) continue;
    const { cwd, parent } = await infoOf(e.name);
    out.push({
      source,
      path: join(tasks, e.name, file),
      sessionId: e.name,
      appendOnly: false,
      ...(cwd ? { cwd } : {}),
      ...(parent ? { parentSessionId: parent } : {}),
    });
  }
  return out;
}

/** What a `tool` message's JSON says: the tool and the path or query it was about. */
function toolOfJson(text: string): ToolRecord {
  const o = obj(parseJson(text)) ?? {};
  return toolCall(str(o.tool) ?? 'tool', o, []);
}

/** An MCP call's JSON (`use_mcp_server`): the server and tool, named as `<server>__<tool>`. */
function mcpToolOf(text: string): ToolRecord {
  const o = obj(parseJson(text)) ?? {};
  const name = `${str(o.serverName) ?? 'mcp'}__${str(o.toolName) ?? str(o.uri) ?? 'tool'}`;
  return { name, ...(str(o.toolName) ? {} : { target: str(o.uri) }) };
}

/** The messages of a task's `ui_messages.json`. */
export async function readTask(f: TranscriptFile, opts: ReadOptions, speaker: string): Promise<ReadResult> {
  const skipped: Record<string, number> = {};
  const whole = await readWholeFile(f.path);
  if (!whole.ok) {
    skip(skipped, whole.reason);
    return { messages: [], skipped };
  }
  const data = parseJson(whole.text);
  if (!Array.isArray(data)) {
    skip(skipped, 'not a message list');
    return { messages: [], skipped };
  }
  const out: CapturedMessage[] = [];
  let lastTool: CapturedMessage | undefined;
  let first = true;
  for (const raw of arr(data)) {
    const m = obj(raw);
    if (!m || typeof m.ts !== 'number') {
      skip(skipped, 'a message without a time');
      continue;
    }
    const kind = str(m.say) ?? str(m.ask) ?? '';
    const text = (str(m.text) ?? '').trim();
    const base = {
      id: `${f.sessionId}:${m.ts}`,
      timestamp: utc(m.ts),
      ...(f.cwd ? { cwd: f.cwd } : {}),
      open: m.partial === true,
    };
    if (kind === 'task' || kind === 'user_feedback') {
      // A sub-task's first message was written by the agent that spawned it.
      if (text)
        out.push(
          kind === 'task' && first && f.parentSessionId
            ? { ...base, role: 'assistant', speaker: `${speaker} (task)`, text }
            : { ...base, role: 'user', text },
        );
    } else if (kind === 'text' || kind === 'completion_result' || kind === 'followup') {
      const t = kind === 'followup' ? (str(obj(parseJson(text))?.question) ?? text) : text;
      if (t && !(m.type === 'ask' && kind === 'completion_result'))
        out.push({ ...base, role: 'assistant', speaker: speaker, text: t });
    } else if (kind === 'command') {
      lastTool = {
        ...base,
        role: 'tool',
        speaker: speaker,
        text: '',
        tool: { name: 'execute_command', command: text },
      };
      out.push(lastTool);
    } else if (kind === 'command_output') {
      if (lastTool?.tool?.command !== undefined)
        lastTool.tool.output = `${lastTool.tool.output ?? ''}${text}`;
    } else if (kind === 'tool') {
      lastTool = { ...base, role: 'tool', speaker: speaker, text: '', tool: toolOfJson(text) };
      out.push(lastTool);
    } else if (kind === 'use_mcp_server') {
      lastTool = { ...base, role: 'tool', speaker: speaker, text: '', tool: mcpToolOf(text) };
      out.push(lastTool);
    } else if (kind === 'mcp_server_response') {
      if (lastTool?.tool) lastTool.tool.output = text;
    } else if (!QUIET.has(kind)) skip(skipped, `unknown message "${kind || m.type}"`);
    first = false;
  }
  if (opts.final) for (const m of out) m.open = false;
  return { messages: out, ...(f.cwd ? { cwd: f.cwd } : {}), skipped };
}
