/**
 * GitHub Copilot CLI: `~/.copilot/session-state/<session id>/events.jsonl` (`COPILOT_HOME` replaces
 * `~/.copilot`), an append-only event log, one `{type, data, id, timestamp, parentId}` a line:
 * `session.start` (data: session id, context with the working folder), `user.message` (`content`),
 * `assistant.message` (`messageId`, `content`, `toolRequests`), `tool.execution_start` /
 * `tool.execution_complete` by `toolCallId` (`success`, `result`). The session's folder is also in
 * `workspace.yaml` beside it (`cwd`). The CLI is closed source: these names come from its documentation and
 * from third-party parsers that agree (docs/capture.md marks them unverified); an unknown event is counted
 * and skipped, never a failure.
 */
import { join } from 'node:path';
import { load as loadYaml, JSON_SCHEMA } from 'js-yaml';
import type { SourceAdapter, SourceEnv, TranscriptFile } from '../types';
import { firstLines, listDir, parseJson, readWholeFile, subfolders } from '../read';
import { arr, exitCodeIn, obj, readJsonl, skip, str, textOf, toolCall, utc } from './common';
import type { TranscriptRead } from './common';

const SPEAKER = 'Copilot CLI';
const SHELL_TOOLS = new Set(['bash', 'shell', 'powershell', 'run_in_terminal']);
/** Events that carry nothing to learn (known, not counted as skipped). */
const QUIET =
  /^(?:session\.|assistant\.turn_|assistant\.message_delta|assistant\.reasoning|subagent\.|hook\.|abort|system\.|tool\.execution_partial|tool\.user_requested)/;

function home(env: SourceEnv): string {
  return env.env.COPILOT_HOME || join(env.home, '.copilot');
}

async function yamlCwd(dir: string): Promise<string | undefined> {
  const f = await readWholeFile(join(dir, 'workspace.yaml'), 1024 * 1024);
  if (!f.ok) return undefined;
  try {
    return str(obj(loadYaml(f.text, { schema: JSON_SCHEMA }))?.cwd);
  } catch {
    return undefined;
  }
}

async function discover(env: SourceEnv): Promise<TranscriptFile[]> {
  const root = join(home(env), 'session-state');
  const out: TranscriptFile[] = [];
  for (const { name, path: dir } of await subfolders(root)) {
    if (!(await listDir(dir)).some((x) => x.file && x.name === 'events.jsonl')) continue;
    const cwd = await yamlCwd(dir);
    out.push({
      source: 'copilot-cli',
      path: join(dir, 'events.jsonl'),
      sessionId: name,
      appendOnly: true,
      ...(cwd ? { cwd } : {}),
    });
  }
  return out;
}

async function cwdOf(f: TranscriptFile): Promise<string | undefined> {
  for (const line of await firstLines(f.path, 64 * 1024)) {
    const data = obj(obj(parseJson(line))?.data);
    const cwd = str(obj(data?.context)?.cwd) ?? str(data?.cwd);
    if (cwd) return cwd;
  }
  return undefined;
}

/** One event: the session's start (its folder), the person's words, a reply and its tool requests, a tool's run. */
function event(ev: Record<string, unknown>, start: number, r: TranscriptRead): void {
  const { list, skipped } = r;
  const type = str(ev.type) ?? '';
  const data = obj(ev.data) ?? {};
  const cwd = r.cwd;
  const base = { timestamp: utc(ev.timestamp), startOffset: start, ...(cwd ? { cwd } : {}) };
  const id = str(ev.id);
  if (type === 'session.start') {
    r.cwd = str(obj(data.context)?.cwd) ?? str(data.cwd) ?? cwd;
    return;
  }
  if (type === 'user.message') {
    const text = textOf(data.content).trim();
    if (text && id) list.add({ id, role: 'user', text, ...base });
    return;
  }
  if (type === 'assistant.message') {
    const text = textOf(data.content).trim();
    const mid = str(data.messageId) ?? id;
    if (text && mid) list.add({ id: mid, role: 'assistant', speaker: SPEAKER, text, ...base }, id ?? mid);
    for (const t of arr(data.toolRequests)) {
      const req = obj(t);
      const callId = str(req?.toolCallId);
      if (!req || !callId) continue;
      const name = str(req.name) ?? 'tool';
      const args = typeof req.arguments === 'string' ? parseJson(req.arguments) : req.arguments;
      list.add({
        id: callId,
        role: 'tool',
        speaker: SPEAKER,
        text: '',
        tool: toolCall(name, args, SHELL_TOOLS.has(name) ? undefined : []),
        ...base,
        open: true,
      });
    }
    return;
  }
  if (type === 'tool.execution_start' || type === 'tool.execution_complete') {
    const callId = str(data.toolCallId);
    if (!callId) return;
    const name = str(data.toolName) ?? list.get(callId)?.tool?.name ?? 'tool';
    const call =
      list.get(callId) ??
      list.add({
        id: callId,
        role: 'tool',
        speaker: SPEAKER,
        text: '',
        tool: toolCall(name, data.arguments, SHELL_TOOLS.has(name) ? undefined : []),
        ...base,
        open: true,
      });
    if (type === 'tool.execution_complete') {
      const result = obj(data.result);
      const output = str(result?.content) ?? textOf(result?.content) ?? str(data.error);
      const failed = data.success === false;
      const code = exitCodeIn(output);
      call.tool = {
        ...call.tool!,
        output,
        failed,
        ...(call.tool?.command ? { exitCode: code ?? (failed ? 1 : 0) } : {}),
      };
      call.open = false;
    }
    return;
  }
  if (!QUIET.test(type)) skip(skipped, `unknown event "${type}"`);
}

export const copilotCli: SourceAdapter = {
  id: 'copilot-cli',
  speaker: SPEAKER,
  roots: (env) => [join(home(env), 'session-state')],
  discover,
  cwdOf,
  read: (f, offset, state, opts) => readJsonl(f.path, offset, state, opts, event, f.cwd),
};
