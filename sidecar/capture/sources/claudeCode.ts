/**
 * Claude Code: `~/.claude/projects/<cwd with non-alphanumerics as '-'>/<session-uuid>.jsonl` (or under
 * `$CLAUDE_CONFIG_DIR`), appended during the session; sub-agents in `<session-uuid>/subagents/agent-*.jsonl`
 * (older builds: `agent-*.jsonl` beside the sessions). One JSON object a line: `type` `user` / `assistant`
 * carry `uuid`, `sessionId`, `timestamp`, `cwd`, `isSidechain` and `message` in the Anthropic Messages
 * shape; one reply is streamed as several lines sharing `message.id` (merged here); tool results ride on
 * `user` lines as `tool_result` blocks. Other types (summary, system, snapshots…) carry no conversation.
 * Line schema: Anthropic calls it internal; see docs/capture.md for what was verified.
 */
import { join } from 'node:path';
import type { SourceAdapter, SourceEnv, TranscriptFile } from '../types';
import { firstLines, listDir, parseJson } from '../read';
import { arr, exitCodeIn, obj, readJsonl, skip, str, textOf, toolCall, utc } from './common';
import type { TranscriptRead } from './common';

const SPEAKER = 'Claude Code';

/** Record types that carry no conversation (known, not counted as skipped). */
const QUIET_TYPES = new Set([
  'summary',
  'system',
  'custom-title',
  'file-history-snapshot',
  'attachment',
  'queue-operation',
  'progress',
  'x-leaf',
  'ai-title',
  'agent-name',
  'last-prompt',
  'permission-mode',
]);

/** Markup Claude Code wraps around slash commands and reminders in user lines: not the person's words. */
const WRAPPERS =
  /<(system-reminder|command-name|command-message|command-args|local-command-stdout|local-command-stderr|local-command-caveat|user-prompt-submit-hook|bash-input|bash-stdout|bash-stderr)>[\s\S]*?<\/\1>/g;

function root(env: SourceEnv): string {
  return join(env.env.CLAUDE_CONFIG_DIR || join(env.home, '.claude'), 'projects');
}

/** Claude Code's folder name for a working folder: every non-alphanumeric character becomes '-'. */
export function claudeProjectSlug(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
}

async function discover(env: SourceEnv): Promise<TranscriptFile[]> {
  const out: TranscriptFile[] = [];
  const file = (path: string, sessionId: string, parentSessionId?: string): TranscriptFile => ({
    source: 'claude-code',
    path,
    sessionId,
    appendOnly: true,
    ...(parentSessionId ? { parentSessionId } : {}),
  });
  for (const project of await listDir(root(env))) {
    if (!project.dir) continue;
    const dir = join(root(env), project.name);
    for (const e of await listDir(dir)) {
      if (e.file && e.name.endsWith('.jsonl')) {
        const id = e.name.slice(0, -'.jsonl'.length);
        out.push(file(join(dir, e.name), id));
      } else if (e.dir) {
        for (const s of await listDir(join(dir, e.name, 'subagents')))
          if (s.file && s.name.endsWith('.jsonl'))
            out.push(file(join(dir, e.name, 'subagents', s.name), s.name.slice(0, -6), e.name));
      }
    }
  }
  return out;
}

/** The working folder from the first lines that state one. */
async function cwdOf(f: TranscriptFile): Promise<string | undefined> {
  for (const line of await firstLines(f.path, 64 * 1024)) {
    const cwd = str(obj(parseJson(line))?.cwd);
    if (cwd) return cwd;
  }
  return undefined;
}

function userText(content: unknown): string {
  return textOf(content).replace(WRAPPERS, '').trim();
}

function toolResultText(content: unknown): string {
  return typeof content === 'string' ? content : textOf(content);
}

/** One line: a reply (streamed as several lines sharing its id), its tool calls, their results, the person's words. */
function record(rec: Record<string, unknown>, start: number, r: TranscriptRead): void {
  const { list, skipped } = r;
  const type = str(rec.type);
  if (type !== 'user' && type !== 'assistant') {
    if (!type || !QUIET_TYPES.has(type)) skip(skipped, `unknown record type "${String(type)}"`);
    return;
  }
  if (rec.isMeta === true) return;
  r.cwd = str(rec.cwd) ?? r.cwd;
  const cwd = r.cwd;
  const message = obj(rec.message);
  const timestamp = utc(rec.timestamp);
  const base = { timestamp, startOffset: start, ...(cwd ? { cwd } : {}) };
  const sidechain = rec.isSidechain === true;
  const content = message?.content;
  if (type === 'assistant') {
    const id = str(message?.id) ?? str(rec.uuid);
    if (!id) {
      skip(skipped, 'a reply without an id');
      return;
    }
    const text = textOf(arr(content).filter((b) => obj(b)?.type === 'text')).trim();
    if (text)
      list.add(
        { id, role: 'assistant', speaker: sidechain ? `${SPEAKER} (sub-agent)` : SPEAKER, text, ...base },
        str(rec.uuid) ?? id,
      );
    for (const b of arr(content)) {
      const block = obj(b);
      if (block?.type !== 'tool_use' || typeof block.id !== 'string') continue;
      list.add({
        id: block.id,
        role: 'tool',
        speaker: SPEAKER,
        text: '',
        tool: toolCall(str(block.name) ?? 'tool', block.input),
        ...base,
        open: true,
      });
    }
    return;
  }
  // A user line: the person's words, or tool results.
  for (const b of arr(content)) {
    const block = obj(b);
    if (block?.type !== 'tool_result' || typeof block.tool_use_id !== 'string') continue;
    const call = list.get(block.tool_use_id);
    const output = toolResultText(block.content);
    const failed = block.is_error === true;
    const tool = {
      ...(call?.tool ?? { name: 'tool' }),
      output,
      failed,
      exitCode: failed ? (exitCodeIn(output) ?? 1) : 0,
    };
    if (call) {
      call.tool = tool;
      call.open = false;
    } else list.add({ id: block.tool_use_id, role: 'tool', speaker: SPEAKER, text: '', tool, ...base });
  }
  const text = userText(
    typeof content === 'string' ? content : arr(content).filter((b) => obj(b)?.type === 'text'),
  );
  const uuid = str(rec.uuid);
  if (!text || !uuid || /^\[Request interrupted by user/.test(text)) return;
  // In a sub-agent's transcript the "user" is the agent that spawned it, not the person.
  if (sidechain) list.add({ id: uuid, role: 'assistant', speaker: `${SPEAKER} (task)`, text, ...base });
  else list.add({ id: uuid, role: 'user', text, ...base });
}

export const claudeCode: SourceAdapter = {
  id: 'claude-code',
  speaker: SPEAKER,
  roots: (env) => [root(env)],
  discover,
  cwdOf,
  read: (f, offset, state, opts) => readJsonl(f.path, offset, state, opts, record),
};
