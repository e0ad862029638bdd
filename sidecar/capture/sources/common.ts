/**
 * What several adapters need: the ordered list of messages a read builds (fragments of one message merged
 * by its id, tool calls paired with their results), text out of content blocks, times as UTC, counting
 * skipped records, the read of an append-only JSONL transcript from its cursor (each adapter says only what
 * one record means), and the VS Code-family user folder.
 */
import { join } from 'node:path';
import { toUtcIso } from '../../pipeline/normalize';
import { parseJson, readLines } from '../read';
import type {
  AdapterState,
  CapturedMessage,
  ReadOptions,
  ReadResult,
  SkippedRecords,
  SourceEnv,
  ToolRecord,
} from '../types';

/** UTC ISO-8601 of a transcript's time (ISO with any offset, epoch seconds or milliseconds), else undefined. */
export function utc(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  try {
    return toUtcIso(value);
  } catch {
    return undefined;
  }
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function obj(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Counts a skipped record under its reason. */
export function skip(skipped: SkippedRecords, why: string): void {
  skipped[why] = (skipped[why] ?? 0) + 1;
}

/** The records of an append-only JSONL transcript: its whole lines from `offset` that are JSON objects. */
interface RecordsRead {
  /** Each record and the byte offset where its line starts. */
  records: { rec: Record<string, unknown>; start: number }[];
  /** Byte offset after the last whole line read. */
  end: number;
  /** What could not be read (a bad line, a line that is no JSON object, the file itself), by reason. */
  skipped: SkippedRecords;
}

/** Reads the JSON records of an append-only transcript from `offset` (`readLines`: whole lines, bounded). */
async function readRecords(path: string, offset: number, maxBytes?: number): Promise<RecordsRead> {
  const r = await readLines(path, offset, maxBytes);
  const skipped: SkippedRecords = { ...r.skipped };
  if (r.error) skip(skipped, r.error);
  const records: RecordsRead['records'] = [];
  for (const line of r.lines) {
    const rec = obj(parseJson(line.text));
    if (rec) records.push({ rec, start: line.start });
    else skip(skipped, 'not JSON');
  }
  return { records, end: r.end, skipped };
}

/** Merges one read's counts into another. */
export function addSkipped(into: SkippedRecords, from: SkippedRecords): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}

/**
 * The text of Anthropic-style content (a string, or blocks of which `text` ones count), of Gemini parts
 * (`{text}`), or of OpenAI-style parts (`input_text` / `output_text`).
 */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  const parts: string[] = [];
  for (const b of arr(content)) {
    if (typeof b === 'string') parts.push(b);
    const o = obj(b);
    if (!o) continue;
    const t = o.type;
    if (
      (t === undefined || t === 'text' || t === 'input_text' || t === 'output_text') &&
      typeof o.text === 'string'
    )
      parts.push(o.text);
  }
  return parts.join('\n');
}

/** The ordered messages of one read, merged by id. */
export class MessageList {
  private readonly byId = new Map<string, CapturedMessage>();
  private readonly order: CapturedMessage[] = [];

  /**
   * Adds a message, or appends its text to the message with the same id (a streamed reply's fragments).
   * `part`: the id of the record this text came from, when a message is made of several records.
   */
  add(m: CapturedMessage, part?: string): CapturedMessage {
    const prev = this.byId.get(m.id);
    if (!prev) {
      if (part) m.parts = [{ key: part, text: m.text }];
      this.byId.set(m.id, m);
      this.order.push(m);
      return m;
    }
    if (part && m.text) (prev.parts ??= []).push({ key: part, text: m.text });
    if (m.text && !prev.text.includes(m.text)) prev.text = prev.text ? `${prev.text}\n${m.text}` : m.text;
    prev.timestamp ??= m.timestamp;
    prev.cwd ??= m.cwd;
    if (m.tool) prev.tool = { ...prev.tool, ...m.tool };
    return prev;
  }

  get(id: string): CapturedMessage | undefined {
    return this.byId.get(id);
  }

  /** Replaces a message wholly (a record re-written with the same id: last one wins). */
  replace(m: CapturedMessage): void {
    const prev = this.byId.get(m.id);
    if (!prev) {
      this.add(m);
      return;
    }
    Object.assign(prev, m);
  }

  /** Drops every message from the one with this id on (a rewind). Returns false when the id is unknown. */
  truncateFrom(id: string): boolean {
    const i = this.order.findIndex((m) => m.id === id);
    if (i < 0) return false;
    for (const m of this.order.splice(i)) this.byId.delete(m.id);
    return true;
  }

  clear(): void {
    this.byId.clear();
    this.order.length = 0;
  }

  get messages(): CapturedMessage[] {
    return this.order;
  }
}

/** A tool call's record from its name and input, before its result is known. */
export function toolCall(
  name: string,
  input: unknown,
  commandKeys: readonly string[] = COMMAND_KEYS,
): ToolRecord {
  const i = obj(input) ?? {};
  let command: string | undefined;
  for (const k of commandKeys) {
    const v = i[k];
    if (typeof v === 'string' && v.trim()) command = v;
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string') && v.length)
      command = shellJoin(v as string[]);
    if (command) break;
  }
  const target = command ? undefined : targetOf(i);
  return { name, ...(command ? { command } : {}), ...(target ? { target } : {}) };
}

/** Input keys that hold a shell command in the agents' shell tools. */
const COMMAND_KEYS = ['command', 'cmd', 'commandLine'] as const;
/** Input keys that say what a non-shell tool was about, most telling first. */
const TARGET_KEYS = [
  'file_path',
  'filePath',
  'path',
  'absolute_path',
  'pattern',
  'query',
  'url',
  'description',
];

function targetOf(input: Record<string, unknown>): string | undefined {
  for (const k of TARGET_KEYS) {
    const v = input[k];
    if (typeof v === 'string' && v.trim()) return v.length > 200 ? `${v.slice(0, 199)}…` : v;
  }
  return undefined;
}

/**
 * `["bash", "-lc", "npm test"]` → `npm test`; other argument vectors are joined with quotes where needed.
 * (Codex records its shell calls as argument vectors.)
 */
export function shellJoin(argv: string[]): string {
  if (argv.length === 3 && /(^|\/)(ba|z|da)?sh$/.test(argv[0]!) && /^-l?c$/.test(argv[1]!)) return argv[2]!;
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** An exit code written in a tool's output ("Exit code: 1", "exit code 2", "Process exited with code 3"). */
export function exitCodeIn(output: string): number | undefined {
  const m =
    /(?:exit(?:ed)?(?: with)? code|exit status)[:\s]+(-?\d+)/i.exec(output.slice(0, 2000)) ??
    /(?:exit(?:ed)?(?: with)? code|exit status)[:\s]+(-?\d+)/i.exec(output.slice(-2000));
  return m ? Number(m[1]) : undefined;
}

/** VS Code's user folder for a product (`Code`, `Code - Insiders`, `Cursor`) on this platform. */
export function vscodeUserDir(env: SourceEnv, product = 'Code'): string {
  if (product === 'Code' && env.vscodeUserDir) return env.vscodeUserDir;
  if (env.platform === 'darwin') return join(env.home, 'Library', 'Application Support', product, 'User');
  if (env.platform === 'win32')
    return join(env.env.APPDATA || join(env.home, 'AppData', 'Roaming'), product, 'User');
  return join(env.env.XDG_CONFIG_HOME || join(env.home, '.config'), product, 'User');
}

/** A `file://` URI as a local path (VS Code's workspace.json, chat references), else undefined. */
export function fileUriPath(uri: unknown): string | undefined {
  const s = typeof uri === 'string' ? uri : (str(obj(uri)?.fsPath) ?? str(obj(uri)?.path));
  if (!s) return undefined;
  if (!s.startsWith('file://')) return s.startsWith('/') || /^[A-Za-z]:[\\/]/.test(s) ? s : undefined;
  try {
    const u = new URL(s);
    const p = decodeURIComponent(u.pathname);
    return /^\/[A-Za-z]:\//.test(p) ? p.slice(1) : p;
  } catch {
    return undefined;
  }
}

/**
 * One read of a transcript as it is built: its messages, what was skipped, and what the file's head said
 * (its folder, whether it is a sub-agent's, its session id), which the cursor carries to the next read.
 */
export interface TranscriptRead {
  list: MessageList;
  skipped: SkippedRecords;
  cwd?: string;
  sub: boolean;
  sessionId?: string;
}

/** A read resumed from the file's cursor `state`; `cwd`: the folder discovery knew, when the cursor has none. */
export function resumeRead(state: AdapterState | undefined, cwd?: string): TranscriptRead {
  return {
    list: new MessageList(),
    skipped: {},
    cwd: str(state?.cwd) ?? cwd,
    sub: state?.sub === true,
    sessionId: str(state?.sessionId),
  };
}

/**
 * Reads an append-only JSONL transcript from its cursor (`offset`, `state`): each record, with the byte
 * offset its line starts at, to the adapter's `record`, which adds what it says to the read; then
 * `finishRead`. `cwd` as in `resumeRead`.
 */
export async function readJsonl(
  path: string,
  offset: number,
  state: AdapterState | undefined,
  opts: ReadOptions,
  record: (rec: Record<string, unknown>, start: number, r: TranscriptRead) => void,
  cwd?: string,
): Promise<ReadResult> {
  const records = await readRecords(path, offset, opts.maxBytes);
  const r = { ...resumeRead(state, cwd), skipped: records.skipped };
  for (const { rec, start } of records.records) record(rec, start, r);
  return finishRead(r, opts, records.end);
}

/**
 * The end of a read: a reply at its end may still be streaming while the file is written (open until it
 * settles); once the session ended nothing stays open; the result with the state to resume from (`end`: the
 * byte offset read to, for an append-only file).
 */
export function finishRead(r: TranscriptRead, opts: ReadOptions, end?: number): ReadResult {
  const state: AdapterState = {
    ...(r.cwd ? { cwd: r.cwd } : {}),
    ...(r.sub ? { sub: true } : {}),
    ...(r.sessionId ? { sessionId: r.sessionId } : {}),
  };
  const messages = r.list.messages;
  const last = messages.at(-1);
  if (!opts.settled && last?.role === 'assistant') last.open = true;
  if (opts.final) for (const m of messages) m.open = false;
  return {
    messages,
    ...(end !== undefined ? { endOffset: end } : {}),
    state,
    ...(r.cwd ? { cwd: r.cwd } : {}),
    ...(r.sessionId ? { sessionId: r.sessionId } : {}),
    skipped: r.skipped,
  };
}
