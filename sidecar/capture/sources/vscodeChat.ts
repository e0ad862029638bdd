/**
 * VS Code's own chat (Copilot Chat in ask, edit and agent mode, and other participants): one file per session
 * in `<User>/workspaceStorage/<workspace id>/chatSessions/` — `<session id>.json`, the whole serialized chat
 * (before 1.109), or `<session id>.jsonl`, an object mutation log (microsoft/vscode `objectMutationLog.ts`):
 * line 1 `{kind: 0, v: <state>}`, then `{kind: 1, k: path, v}` set, `{kind: 2, k: path, v: items, i?}`
 * push (truncating at `i` first), `{kind: 3, k: path}` delete, replayed here in order; VS Code rewrites the
 * file from a fresh `kind: 0` line after enough entries, so it is read whole each time it changes. A
 * session's `requests[]` hold the person's `message.text`, the `response` parts (markdown, tool invocations
 * with their terminal command, exit code and output), `responseId`, `timestamp` (epoch ms), the `agent` that
 * answered and `modelState` (0 pending). Requests answered by Mnemo's own participant (`@mnemo`, captured as
 * it happens by src/capture/chat.ts) are left out. Inside the editor the workspace's storage folder is known
 * exactly; the CLI finds it by `workspace.json` (`{"folder": "file:///…"}`) in each storage folder.
 */
import { join } from 'node:path';
import type { CapturedMessage, SourceAdapter, SourceEnv, TranscriptFile } from '../types';
import { listDir, parseJson, readJsonFile, readWholeFile, subfolders } from '../read';
import { arr, fileUriPath, obj, skip, str, utc, vscodeUserDir } from './common';

/** Mnemo's chat participant (package.json `chatParticipants`): its turns are captured by the extension itself. */
export const MNEMO_PARTICIPANT = 'mnemo.chat';
const PRODUCTS = ['Code', 'Code - Insiders'];

/** The folder a workspace storage folder belongs to (`workspace.json`), when it is a single folder. */
async function folderOf(storage: string): Promise<string | undefined> {
  const meta = obj(await readJsonFile(join(storage, 'workspace.json')));
  return fileUriPath(meta?.folder);
}

/**
 * The most a chat session file is read to tell whether it holds anything: VS Code writes a session file as
 * soon as the Chat view opens (1–2 KB with no request), and a file this small is cheap to look into.
 */
const EMPTY_PROBE_BYTES = 32 * 1024;

/**
 * Whether a session file holds at least one request. A chat nobody wrote in is no session to ask the person
 * about or to count ("VS Code Chat (1 session)" for an empty Chat view); a larger file, or one that cannot
 * be parsed, is counted (its read says what is wrong with it).
 */
export async function holdsRequests(path: string): Promise<boolean> {
  const whole = await readWholeFile(path, EMPTY_PROBE_BYTES);
  if (!whole.ok) return true;
  const chat = path.endsWith('.jsonl') ? replayMutationLog(whole.text, {}) : obj(parseJson(whole.text));
  if (!chat) return whole.text.trim().length > 0;
  return arr(chat.requests).length > 0;
}

async function sessionsIn(storage: string, cwd: string | undefined): Promise<TranscriptFile[]> {
  const dir = join(storage, 'chatSessions');
  const names = (await listDir(dir)).filter((e) => e.file && /\.jsonl?$/.test(e.name)).map((e) => e.name);
  const files = names
    .filter((n) => !(n.endsWith('.json') && names.includes(`${n}l`)))
    .map(
      (n): TranscriptFile => ({
        source: 'vscode-chat',
        path: join(dir, n),
        sessionId: n.replace(/\.jsonl?$/, ''),
        appendOnly: false,
        ...(cwd ? { cwd } : {}),
      }),
    );
  const kept = await Promise.all(files.map((f) => holdsRequests(f.path)));
  return files.filter((_, i) => kept[i]);
}

async function discover(env: SourceEnv): Promise<TranscriptFile[]> {
  if (env.workspaceStorage) {
    // Inside the editor: this workspace's own storage; a multi-root workspace's chats go to its first folder.
    return sessionsIn(env.workspaceStorage, (await folderOf(env.workspaceStorage)) ?? env.folders[0]);
  }
  const out: TranscriptFile[] = [];
  for (const product of PRODUCTS) {
    const root = join(vscodeUserDir(env, product), 'workspaceStorage');
    for (const { path: storage } of await subfolders(root)) {
      const files = await sessionsIn(storage, await folderOf(storage));
      out.push(...files);
    }
  }
  return out;
}

/** Replays an object mutation log into the chat's state. */
export function replayMutationLog(
  text: string,
  skipped: Record<string, number>,
): Record<string, unknown> | undefined {
  let state: unknown;
  // A last line without its newline is still being appended: read next time, not counted as bad.
  const lines = text.split('\n');
  if (!text.endsWith('\n')) lines.pop();
  for (const raw of lines) {
    if (!raw.trim()) continue;
    const e = obj(parseJson(raw));
    if (!e || typeof e.kind !== 'number') {
      skip(skipped, 'not a mutation log entry');
      continue;
    }
    if (e.kind === 0) {
      state = e.v;
      continue;
    }
    if (state === undefined) {
      skip(skipped, 'an entry before the initial state');
      continue;
    }
    const path = arr(e.k);
    if (path.length === 0) {
      if (e.kind === 1) state = e.v;
      continue;
    }
    let cur = state as Record<string | number, unknown>;
    for (const k of path.slice(0, -1)) {
      const next = cur?.[k as string];
      if (!next || typeof next !== 'object') {
        cur = undefined as never;
        break;
      }
      cur = next as Record<string | number, unknown>;
    }
    if (!cur) {
      skip(skipped, 'an entry for a missing path');
      continue;
    }
    const key = path[path.length - 1] as string;
    if (e.kind === 1) cur[key] = e.v;
    else if (e.kind === 3) delete cur[key];
    else if (e.kind === 2) {
      const list = Array.isArray(cur[key]) ? (cur[key] as unknown[]) : [];
      if (typeof e.i === 'number') list.length = Math.min(list.length, e.i);
      list.push(...arr(e.v));
      cur[key] = list;
    } else skip(skipped, `unknown entry kind ${e.kind}`);
  }
  return obj(state);
}

/** A string or VS Code's IMarkdownString `{value}`. */
function md(v: unknown): string | undefined {
  return typeof v === 'string' ? v : str(obj(v)?.value);
}

/** The record of a tool invocation in a response. */
function toolOf(part: Record<string, unknown>): CapturedMessage['tool'] {
  const name = str(part.toolId) ?? 'tool';
  const data = obj(part.toolSpecificData);
  if (data?.kind === 'terminal') {
    const line = obj(data.commandLine);
    const command =
      str(line?.toolEdited) ?? str(line?.userEdited) ?? str(line?.original) ?? str(data.command);
    const state = obj(data.terminalCommandState);
    const exitCode = typeof state?.exitCode === 'number' ? state.exitCode : undefined;
    const output = str(obj(data.terminalCommandOutput)?.text);
    if (command)
      return {
        name,
        command,
        ...(exitCode !== undefined ? { exitCode, failed: exitCode !== 0 } : {}),
        ...(output !== undefined ? { output } : {}),
      };
  }
  const target = md(part.pastTenseMessage) ?? md(part.invocationMessage);
  return { name, ...(target ? { target: target.replace(/\s+/g, ' ').slice(0, 200) } : {}) };
}

function messagesOf(
  chat: Record<string, unknown>,
  cwd: string | undefined,
  final: boolean,
): CapturedMessage[] {
  const out: CapturedMessage[] = [];
  const responder = str(chat.responderUsername) ?? 'Copilot';
  for (const r of arr(chat.requests)) {
    const req = obj(r);
    const requestId = str(req?.requestId);
    if (!req || !requestId) continue;
    const agent = obj(req.agent);
    if (str(agent?.id) === MNEMO_PARTICIPANT) continue;
    const at = utc(req.timestamp);
    const base = { ...(at ? { timestamp: at } : {}), ...(cwd ? { cwd } : {}) };
    const message = obj(req.message);
    const text = (
      str(message?.text) ??
      arr(message?.parts)
        .map((p) => str(obj(p)?.text) ?? '')
        .join('')
    ).trim();
    if (text) out.push({ id: requestId, role: 'user', text, ...base });
    const state = obj(req.modelState);
    const open = !final && typeof state?.value === 'number' && (state.value === 0 || state.value === 4);
    const speaker = str(agent?.fullName) ?? str(agent?.name) ?? responder;
    const texts: string[] = [];
    for (const p of arr(req.response)) {
      const part = obj(p);
      if (!part) continue;
      const kind = str(part.kind);
      if (kind === undefined || kind === 'markdownContent' || kind === 'markdownVuln') {
        const t = md(part.value) ?? md(part.content);
        if (t) texts.push(t);
      } else if (kind === 'toolInvocationSerialized' || kind === 'toolInvocation') {
        const id = str(part.toolCallId);
        if (id)
          out.push({
            id,
            role: 'tool',
            speaker,
            text: '',
            tool: toolOf(part),
            ...base,
            open: open && part.isComplete === false,
          });
      }
    }
    const reply = texts.join('').trim();
    if (reply)
      out.push({
        id: str(req.responseId) ?? `${requestId}:response`,
        role: 'assistant',
        speaker,
        text: reply,
        ...base,
        ...(typeof state?.completedAt === 'number' ? { timestamp: utc(state.completedAt) } : {}),
        open,
      });
  }
  return out;
}

const read: SourceAdapter['read'] = async (f, _offset, _state, opts) => {
  const skipped: Record<string, number> = {};
  const whole = await readWholeFile(f.path);
  if (!whole.ok) {
    skip(skipped, whole.reason);
    return { messages: [], skipped };
  }
  const chat = f.path.endsWith('.jsonl')
    ? replayMutationLog(whole.text, skipped)
    : obj(parseJson(whole.text));
  if (!chat) {
    if (whole.text.trim()) skip(skipped, 'not a chat session');
    return { messages: [], skipped };
  }
  const cwd = f.cwd;
  return {
    messages: messagesOf(chat, cwd, opts.final),
    ...(cwd ? { cwd } : {}),
    sessionId: str(chat.sessionId) ?? f.sessionId,
    ...(str(chat.customTitle) ? { title: str(chat.customTitle) } : {}),
    skipped,
  };
};

export const vscodeChat: SourceAdapter = {
  id: 'vscode-chat',
  speaker: 'Copilot',
  roots: (env) =>
    env.workspaceStorage
      ? [join(env.workspaceStorage, 'chatSessions')]
      : PRODUCTS.map((p) => join(vscodeUserDir(env, p), 'workspaceStorage')),
  discover,
  read,
};
