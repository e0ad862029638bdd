/**
 * Gemini CLI: `~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl` (`GEMINI_CLI_HOME` replaces the
 * home folder); `<project>` is the short name `~/.gemini/projects.json` gives the project's root, or (older
 * builds) the sha256 of the root. Sub-agents: `chats/<parent session id>/<session id>.jsonl`. The first line
 * is the session's metadata (`sessionId`, `projectHash` = sha256 of the root, `kind`, `directories`), then
 * message records `{id, timestamp, type: user|gemini|info|error|warning, content, toolCalls[]…}`. Appended,
 * but a message is appended again with the same id when its tokens or tool calls arrive (the last one
 * wins); `{"$set": {…}}` updates metadata and may replace all messages; `{"$rewindTo": id}` drops messages
 * from that one on. Legacy whole-file `.json` sessions are read whole.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { SourceAdapter, SourceEnv, TranscriptFile } from '../types';
import { listDir, parseJson, readJsonFile, readWholeFile, firstLines } from '../read';
import { arr, exitCodeIn, finishRead, obj, readJsonl, resumeRead, skip, str, toolCall, utc } from './common';
import type { MessageList, TranscriptRead } from './common';

const SPEAKER = 'Gemini CLI';
/** What the CLI itself ignores in user records: slash commands, help, injected context. */
const IGNORED_USER = /^(?:\/|\?|<session_context>|<hook_context>)/;
const SHELL_TOOLS = new Set(['run_shell_command', 'shell']);

function geminiDir(env: SourceEnv): string {
  return join(env.env.GEMINI_CLI_HOME || env.home, '.gemini');
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Project folder name -> root, from the registry and from the hashes of the folders being captured for. */
async function rootsByDir(env: SourceEnv): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const projects = obj(obj(await readJsonFile(join(geminiDir(env), 'projects.json')))?.projects);
  for (const [root, slug] of Object.entries(projects ?? {}))
    if (typeof slug === 'string') out.set(slug, root);
  for (const f of env.folders) out.set(sha256(f), f);
  return out;
}

async function discover(env: SourceEnv): Promise<TranscriptFile[]> {
  const tmp = join(geminiDir(env), 'tmp');
  const roots = await rootsByDir(env);
  const out: TranscriptFile[] = [];
  for (const project of await listDir(tmp)) {
    if (!project.dir) continue;
    const chats = join(tmp, project.name, 'chats');
    const cwd = roots.get(project.name);
    const add = (path: string, sessionId: string, parentSessionId?: string) =>
      out.push({
        source: 'gemini-cli',
        path,
        sessionId,
        appendOnly: path.endsWith('.jsonl'),
        ...(cwd ? { cwd } : {}),
        ...(parentSessionId ? { parentSessionId } : {}),
      });
    for (const e of await listDir(chats)) {
      if (e.file && e.name.startsWith('session-') && /\.jsonl?$/.test(e.name)) {
        // A legacy .json that was resumed became .jsonl beside it: read only the .jsonl.
        if (e.name.endsWith('.json') && (await listDir(chats)).some((x) => x.name === `${e.name}l`)) continue;
        add(join(chats, e.name), e.name.replace(/\.jsonl?$/, ''));
      } else if (e.dir) {
        for (const s of await listDir(join(chats, e.name)))
          if (s.file && s.name.endsWith('.jsonl'))
            add(join(chats, e.name, s.name), s.name.slice(0, -6), e.name);
      }
    }
  }
  return out;
}

/** The root from the session's metadata: its hash against the folders being captured for, or its directories. */
async function cwdOf(f: TranscriptFile, env: SourceEnv): Promise<string | undefined> {
  const meta = obj(parseJson((await firstLines(f.path, 64 * 1024))[0] ?? ''));
  const hash = str(meta?.projectHash);
  const byHash = hash ? env.folders.find((d) => sha256(d) === hash) : undefined;
  return byHash ?? str(arr(meta?.directories)[0]);
}

function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  const parts = Array.isArray(content) ? content : [content];
  return parts
    .map((p) => obj(p))
    .filter((p) => p && p.thought !== true && typeof p.text === 'string')
    .map((p) => p!.text as string)
    .join('');
}

/** A tool call's result text: the function responses' output or error. */
function resultText(result: unknown): string {
  const out: string[] = [];
  for (const p of Array.isArray(result) ? result : [result]) {
    const o = obj(p);
    if (!o) {
      if (typeof p === 'string') out.push(p);
      continue;
    }
    const resp = obj(obj(o.functionResponse)?.response);
    if (resp) out.push(str(resp.output) ?? str(resp.error) ?? JSON.stringify(resp));
    else if (typeof o.text === 'string') out.push(o.text);
  }
  return out.join('\n');
}

function addRecord(
  list: MessageList,
  rec: Record<string, unknown>,
  sub: boolean,
  start: number | undefined,
  cwd: string | undefined,
): void {
  const id = str(rec.id)!;
  const type = str(rec.type);
  const base = {
    timestamp: utc(rec.timestamp),
    ...(start !== undefined ? { startOffset: start } : {}),
    ...(cwd ? { cwd } : {}),
  };
  if (type === 'user') {
    const text = partsText(rec.content).trim();
    if (!text || IGNORED_USER.test(text)) return;
    list.replace(
      sub
        ? { id, role: 'assistant', speaker: `${SPEAKER} (task)`, text, ...base }
        : { id, role: 'user', text, ...base },
    );
    return;
  }
  if (type !== 'gemini') return;
  const text = partsText(rec.content).trim();
  if (text)
    list.replace({ id, role: 'assistant', speaker: sub ? `${SPEAKER} (sub-agent)` : SPEAKER, text, ...base });
  for (const c of arr(rec.toolCalls)) {
    const call = obj(c);
    const callId = str(call?.id);
    if (!call || !callId) continue;
    const name = str(call.name) ?? 'tool';
    const tool = toolCall(name, call.args, SHELL_TOOLS.has(name) ? undefined : []);
    const status = str(call.status);
    const output = call.result !== undefined && call.result !== null ? resultText(call.result) : undefined;
    if (output !== undefined) {
      tool.output = output;
      const code = exitCodeIn(output);
      if (code !== undefined) tool.exitCode = code;
      else if (tool.command && status === 'success') tool.exitCode = 0;
    }
    if (status === 'error' || status === 'cancelled') tool.failed = true;
    const open = status !== 'success' && status !== 'error' && status !== 'cancelled';
    list.replace({
      id: callId,
      role: 'tool',
      speaker: SPEAKER,
      text: '',
      tool,
      ...base,
      timestamp: utc(call.timestamp) ?? base.timestamp,
      open,
    });
  }
}

/** What the session's head says: its id, whether it is a sub-agent's, its folder. */
function meta(rec: Record<string, unknown>, r: TranscriptRead): void {
  r.sessionId = str(rec.sessionId) ?? r.sessionId;
  r.sub ||= rec.kind === 'subagent';
  r.cwd ??= str(arr(rec.directories)[0]);
}

/** One record (a line, or a legacy session file whole): a rewind, a metadata update, the metadata, a message. */
function use(rec: Record<string, unknown> | undefined, start: number | undefined, r: TranscriptRead): void {
  const { list, skipped } = r;
  if (!rec) return skip(skipped, 'not JSON');
  if (typeof rec.$rewindTo === 'string') {
    list.truncateFrom(rec.$rewindTo); // what was learned before the rewind stays learned
    return;
  }
  const set = obj(rec.$set);
  if (set) {
    meta(set, r);
    if (Array.isArray(set.messages)) {
      list.clear();
      for (const m of set.messages)
        if (obj(m) && typeof obj(m)!.id === 'string') addRecord(list, obj(m)!, r.sub, start, r.cwd);
    }
    return;
  }
  if (typeof rec.sessionId === 'string' && typeof rec.projectHash === 'string') {
    meta(rec, r);
    for (const m of arr(rec.messages))
      if (obj(m) && typeof obj(m)!.id === 'string') addRecord(list, obj(m)!, r.sub, start, r.cwd);
    return;
  }
  if (typeof rec.id === 'string') {
    const type = str(rec.type);
    if (type && !['user', 'gemini', 'info', 'error', 'warning'].includes(type))
      skip(skipped, `unknown message type "${type}"`);
    else addRecord(list, rec, r.sub, start, r.cwd);
    return;
  }
  skip(skipped, 'unknown record');
}

export const geminiCli: SourceAdapter = {
  id: 'gemini-cli',
  speaker: SPEAKER,
  roots: (env) => [join(geminiDir(env), 'tmp')],
  discover,
  cwdOf,
  read: async (f, offset, state, opts) => {
    if (f.appendOnly) return readJsonl(f.path, offset, state, opts, use, f.cwd);
    // A legacy `.json` session, read whole.
    const r = resumeRead(state, f.cwd);
    const whole = await readWholeFile(f.path);
    if (!whole.ok) skip(r.skipped, whole.reason);
    else use(obj(parseJson(whole.text)), undefined, r);
    return finishRead(r, opts);
  },
};
