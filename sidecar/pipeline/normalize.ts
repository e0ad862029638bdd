/**
 * Stage 1: normalize. Validates a session, maps roles, assigns ids, converts timestamps to UTC,
 * strips terminal escape codes and cuts the text down to the extraction window (docs/design.md, Capture and the extraction window: at most
 * 500 characters per message, at most the last 4,000 characters of a session, skip sessions with
 * fewer than 2 substantive lines). Pure: no I/O.
 */
import { InvalidInputError } from '../shared/errors';
import type { NormalizedMessage, RawMessage, Role, SessionInput } from './types';
import { isSmallTalk, meaningfulLength } from './lexicon';
import { wellFormed } from '../shared/text';

/** Per-message extraction window in characters (code points). Default 500 (docs/design.md). */
export const MAX_MESSAGE_CHARS = 500;
/** Session extraction window: the last N characters are kept. Default 4,000 (docs/design.md). */
export const MAX_SESSION_CHARS = 4000;
/** Sessions with fewer substantive lines are skipped. Default 2 (docs/design.md). */
export const MIN_SUBSTANTIVE_LINES = 2;
/** A longer message is kept as several episodes (parts) of at most this many characters: nothing is cut. */
export const MAX_EPISODE_CHARS = 4000;
/**
 * The most of one message Mnemo keeps, in characters (UTF-16 units): a longer one (a pasted log, a tool's
 * output, a file dump) keeps its first {@link MESSAGE_KEPT_HEAD} and last {@link MESSAGE_KEPT_TAIL} characters
 * with a note between them saying how much was left out (docs/limits.md). Cut before anything else reads it.
 */
export const MAX_KEPT_MESSAGE_CHARS = 200_000;
/** Of a cut message: the head kept (most of it: what was asked, the command, the start of the output). */
export const MESSAGE_KEPT_HEAD = 150_000;
/** Of a cut message: the tail kept (how it ended: the error at the end of a log). */
export const MESSAGE_KEPT_TAIL = 49_000;
/** The longest speaker name kept. */
const MAX_SPEAKER_CHARS = 80;

/** The session given to the pipeline is malformed; `message` is one sentence saying what and where. JSON-RPC code InvalidInput. */
export class InvalidSessionError extends InvalidInputError {
  override name = 'InvalidSessionError';
}

export interface NormalizeResult {
  /** The extraction window (what an LLM sees): the newest {@link MAX_SESSION_CHARS} characters, each message cut to {@link MAX_MESSAGE_CHARS}. */
  messages: NormalizedMessage[];
  /** Every message, whole (nothing of a long message is cut): the episodes, the verbatim evidence. */
  all: NormalizedMessage[];
  /** Messages with no text left after cleaning (nothing to read). */
  empty: number;
  /** Why the whole session should not be analyzed; unset when it should. */
  skipped?: string;
}

const ROLE_MAP: Readonly<Record<string, Role>> = {
  user: 'user',
  human: 'user',
  assistant: 'assistant',
  ai: 'assistant',
  bot: 'assistant',
  model: 'assistant',
  agent: 'assistant',
  system: 'system',
  developer: 'system',
  tool: 'tool',
  function: 'tool',
};

/** human/user -> user; ai/assistant/bot/model/agent -> assistant; system/developer -> system; tool/function -> tool; anything else -> user. */
export function mapRole(role: string): Role {
  return ROLE_MAP[role.trim().toLowerCase()] ?? 'user';
}

// CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), other two-char escapes, and 8-bit CSI.
// Every repetition is over a class that cannot overlap the terminator: linear time.

const ANSI_RE =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[PX^_][^\u001b]*(?:\u001b\\)?|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]/g;
// C0/C1 controls other than tab and newline (after \r handling), plus a lone ESC left over.

const CONTROL_RE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

/** Remove ANSI escape sequences (colors, cursor moves, OSC titles/links) from terminal text. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI_RE, '');
}

/**
 * Terminal-aware cleanup: strip ANSI codes, CRLF -> LF, a bare CR overwrites the line (progress
 * bars keep their last state), backspaces erase, other control characters go, trailing blanks go,
 * runs of blank lines collapse to one.
 */
export function cleanText(text: string): string {
  let s = stripAnsi(wellFormed(text)).replace(/\r\n/g, '\n'); // a lone surrogate becomes U+FFFD, not a lost session
  if (s.includes('\r')) {
    s = s
      .split('\n')
      .map((line) => {
        const parts = line.split('\r').filter((p) => p.length > 0);
        return parts.length ? parts[parts.length - 1]! : '';
      })
      .join('\n');
  }
  if (s.includes('\b')) {
    const out: string[] = [];
    for (const ch of s) {
      if (ch === '\b') out.pop();
      else out.push(ch);
    }
    s = out.join('');
  }
  return s
    .replace(CONTROL_RE, '')
    .replace(/[ \t\u00a0]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const TOKEN_CHAR = /[A-Za-z0-9_\-+/=.:@%~]/;

/** Code points of `text` (so a cut never splits a surrogate pair). */
function codePoints(text: string): string[] {
  return Array.from(text);
}

/**
 * The first `max` characters, never ending inside a token (a token straddling the limit is left out
 * whole, so half a secret never reaches the redact stage where it might not be recognised).
 */
export function headWindow(text: string, max: number): string {
  const cps = codePoints(text);
  if (cps.length <= max) return text;
  let cut = max;
  if (TOKEN_CHAR.test(cps[cut - 1]!) && TOKEN_CHAR.test(cps[cut]!)) {
    let i = cut - 1;
    while (i > 0 && TOKEN_CHAR.test(cps[i - 1]!)) i--;
    if (i > 0) cut = i;
  }
  return cps.slice(0, cut).join('').trimEnd();
}

/** The last `max` characters, never starting inside a token (mirror of {@link headWindow}). */
export function tailWindow(text: string, max: number): string {
  const cps = codePoints(text);
  if (cps.length <= max) return text;
  let start = cps.length - max;
  if (TOKEN_CHAR.test(cps[start - 1]!) && TOKEN_CHAR.test(cps[start]!)) {
    let i = start;
    while (i < cps.length && TOKEN_CHAR.test(cps[i]!)) i++;
    start = i;
  }
  return cps.slice(start).join('').trimStart();
}

/** The note that stands where a message was cut (see {@link MAX_KEPT_MESSAGE_CHARS}). */
function cutNote(left: number, total: number): string {
  const n = (x: number): string => x.toLocaleString('en-US');
  return `\n[… ${n(left)} characters of this ${n(total)}-character message left out: Mnemo keeps the first ${n(MESSAGE_KEPT_HEAD)} and the last ${n(MESSAGE_KEPT_TAIL)} of a message …]\n`;
}

/**
 * A message longer than {@link MAX_KEPT_MESSAGE_CHARS}: its head and tail with a note between them (the
 * cuts at line breaks where one is near, never inside a token, so no half secret escapes redaction);
 * `cut` is set when it was cut. One pass over the text. A message that fits is returned as it is.
 */
export function capMessage(text: string): { text: string; cut?: { kept: number; total: number } } {
  if (text.length <= MAX_KEPT_MESSAGE_CHARS) return { text };
  const near = 2000; // how far back (or forward) a line break is looked for
  let headEnd = text.lastIndexOf('\n', MESSAGE_KEPT_HEAD);
  if (headEnd < MESSAGE_KEPT_HEAD - near) headEnd = tokenStart(text, cutIndex(text, MESSAGE_KEPT_HEAD));
  let tailStart = text.indexOf('\n', text.length - MESSAGE_KEPT_TAIL);
  if (tailStart < 0 || tailStart > text.length - MESSAGE_KEPT_TAIL + near)
    tailStart = tokenEnd(text, cutIndex(text, text.length - MESSAGE_KEPT_TAIL));
  const head = text.slice(0, headEnd).trimEnd();
  const tail = text.slice(tailStart).trimStart();
  const kept = head.length + tail.length;
  return { text: head + cutNote(text.length - kept, text.length) + tail, cut: { kept, total: text.length } };
}

/** `i`, or `i - 1` when `i` is inside a surrogate pair. */
function cutIndex(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c >= 0xdc00 && c <= 0xdfff ? i - 1 : i;
}
/** Where the token around `i` starts (`i` itself when it is not inside one). */
function tokenStart(text: string, i: number): number {
  let j = i;
  if (TOKEN_CHAR.test(text[i - 1] ?? '') && TOKEN_CHAR.test(text[i] ?? ''))
    while (j > 0 && TOKEN_CHAR.test(text[j - 1]!)) j--;
  return j;
}
/** Where the token around `i` ends (`i` itself when it is not inside one). */
function tokenEnd(text: string, i: number): number {
  let j = i;
  if (TOKEN_CHAR.test(text[i - 1] ?? '') && TOKEN_CHAR.test(text[i] ?? ''))
    while (j < text.length && TOKEN_CHAR.test(text[j]!)) j++;
  return j;
}

const ISO_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * A timestamp as UTC ISO-8601 with `Z`. Accepts ISO-8601 with any offset (no offset = UTC, the
 * convention docs/design.md asks of cross-timezone teams), epoch seconds or milliseconds (numbers or
 * digit strings; below 1e11 is seconds). Returns undefined when it cannot be read.
 */
export function toUtcIso(value: string | number): string | undefined {
  if (typeof value === 'number' || /^\s*-?\d+(?:\.\d+)?\s*$/.test(value)) {
    const n = typeof value === 'number' ? value : Number(value);
    if (!Number.isFinite(n)) return undefined;
    const ms = Math.abs(n) < 1e11 ? n * 1000 : n;
    const d = new Date(Math.round(ms));
    return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
  }
  const m = ISO_RE.exec(value.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '0', off] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  const ms = Math.round(Number(`0.${frac}`) * 1000);
  let t = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  const check = new Date(t);
  if (
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day ||
    hour > 23 ||
    minute > 59 ||
    second > 60
  ) {
    return undefined;
  }
  if (off && off !== 'Z' && off !== 'z') {
    const sign = off.startsWith('-') ? -1 : 1;
    const digits = off.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
    if (oh > 23 || om > 59) return undefined;
    t -= sign * (oh * 60 + om) * 60_000;
  }
  return new Date(t).toISOString();
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

function validate(input: unknown): asserts input is SessionInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new InvalidSessionError(`A session must be an object, got ${describe(input)}.`);
  }
  const messages = (input as { messages?: unknown }).messages;
  if (!Array.isArray(messages)) {
    throw new InvalidSessionError(`Session "messages" must be an array, got ${describe(messages)}.`);
  }
  messages.forEach((raw: unknown, i: number) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new InvalidSessionError(`Message ${i} must be an object, got ${describe(raw)}.`);
    }
    const m = raw as Record<string, unknown>;
    if (typeof m.role !== 'string') {
      throw new InvalidSessionError(`Message ${i} "role" must be a string, got ${describe(m.role)}.`);
    }
    if (typeof m.content !== 'string') {
      throw new InvalidSessionError(`Message ${i} "content" must be a string, got ${describe(m.content)}.`);
    }
    if (m.id !== undefined && m.id !== null && typeof m.id !== 'string' && typeof m.id !== 'number') {
      throw new InvalidSessionError(`Message ${i} "id" must be a string, got ${describe(m.id)}.`);
    }
    if (m.timestamp !== undefined && m.timestamp !== null) {
      if (typeof m.timestamp !== 'string' && typeof m.timestamp !== 'number') {
        throw new InvalidSessionError(
          `Message ${i} "timestamp" must be ISO-8601 or epoch, got ${describe(m.timestamp)}.`,
        );
      }
      if (toUtcIso(m.timestamp) === undefined) {
        throw new InvalidSessionError(
          `Message ${i} "timestamp" ${JSON.stringify(m.timestamp)} is not ISO-8601 or epoch seconds/millis.`,
        );
      }
    }
  });
}

/** A line that says something: not blank, not punctuation only, not a greeting or "thanks". */
export function isSubstantiveLine(line: string): boolean {
  return meaningfulLength(line) >= 2 && !isSmallTalk(line);
}

/**
 * Normalize a session for the rule stage.
 *
 * - Roles mapped by {@link mapRole}; ids kept (numbers as strings) or `m<index>` (index in the input).
 * - Timestamps to UTC ISO-8601 `Z` via {@link toUtcIso}; missing -> `clock()`.
 * - Content cleaned ({@link cleanText}), empty messages dropped, each cut to its first
 *   {@link MAX_MESSAGE_CHARS} characters, then the session cut to its last {@link MAX_SESSION_CHARS}
 *   characters (older messages dropped, the oldest kept one cut from its start).
 * - `skipped` is set when fewer than {@link MIN_SUBSTANTIVE_LINES} substantive lines remain in
 *   user/assistant/tool messages.
 *
 * @throws InvalidSessionError when the input is malformed (non-array messages, non-string content, bad timestamp).
 */
export function normalizeSession(input: SessionInput, clock: () => Date = () => new Date()): NormalizeResult {
  validate(input);
  const all: NormalizedMessage[] = [];
  let empty = 0;
  input.messages.forEach((raw: RawMessage, i: number) => {
    const content = cleanText(raw.content);
    if (content === '') {
      empty++;
      return;
    }
    const id =
      raw.id !== undefined && raw.id !== null && String(raw.id).trim() !== '' ? String(raw.id) : `m${i}`;
    const dated = raw.timestamp !== undefined && raw.timestamp !== null;
    const timestamp = dated ? toUtcIso(raw.timestamp!)! : clock().toISOString();
    const speaker =
      typeof raw.name === 'string'
        ? headWindow(cleanText(raw.name).replace(/\s+/g, ' ').trim(), MAX_SPEAKER_CHARS)
        : '';
    all.push({
      id,
      role: mapRole(raw.role),
      content,
      timestamp,
      ...(speaker ? { speaker } : {}),
      ...(dated ? {} : { undated: true as const }),
    });
  });
  const out = all.map((m) => ({ ...m, content: headWindow(m.content, MAX_MESSAGE_CHARS) }));

  // Session window: walk back from the newest message (one separator character between messages).
  let budget = MAX_SESSION_CHARS;
  let first = out.length;
  for (let i = out.length - 1; i >= 0; i--) {
    const len = codePoints(out[i]!.content).length;
    if (len <= budget) {
      budget -= len + 1;
      first = i;
      if (budget <= 0) break;
      continue;
    }
    if (budget > 0) {
      const tail = tailWindow(out[i]!.content, budget);
      if (tail !== '') {
        out[i] = { ...out[i]!, content: tail };
        first = i;
      }
    }
    break;
  }
  const messages = out.slice(first);

  let substantive = 0;
  for (const m of all) {
    if (m.role === 'system') continue;
    for (const line of m.content.split('\n')) if (isSubstantiveLine(line)) substantive++;
    if (substantive >= MIN_SUBSTANTIVE_LINES) break; // enough: a 1 MB log need not be read line by line
  }
  if (substantive < MIN_SUBSTANTIVE_LINES) {
    return {
      messages,
      all,
      empty,
      skipped: `too short: ${substantive} substantive line${substantive === 1 ? '' : 's'} (need at least ${MIN_SUBSTANTIVE_LINES})`,
    };
  }
  return { messages, all, empty };
}

/** A sentence end or line break (with the blanks after it): where a piece of a long text likes to end. */
const PIECE_END = /[.!?。！？；;\n]\s*/gu;

/**
 * Cuts a text into pieces of at most `max` code points, each ending at a sentence end or line break in the
 * second half of its window where there is one, else at the window's end (never inside a token, as
 * {@link headWindow}). One pass: each window is walked once, so a 1 MB message splits in linear time (it
 * used to re-walk the whole remainder for every piece: 117 s for 1 MB).
 */
export function splitPieces(text: string, max: number): string[] {
  const pieces: string[] = [];
  let pos = 0;
  for (;;) {
    // The window: the next `max` code points, in UTF-16 units; `whole` when the rest fits in it.
    let end = pos;
    let n = 0;
    while (end < text.length && n < max) {
      const c = text.charCodeAt(end);
      end += c >= 0xd800 && c <= 0xdbff && end + 1 < text.length ? 2 : 1;
      n++;
    }
    if (end >= text.length) break;
    let cut = -1;
    // searched in the window alone: a text without sentence ends must not be searched to its end each time
    for (const m of text.slice(pos, end).matchAll(PIECE_END))
      if (m.index + m[0].length >= max / 2) cut = m.index + m[0].length;
    if (cut < 0) {
      cut = end - pos;
      if (TOKEN_CHAR.test(text[end - 1]!) && TOKEN_CHAR.test(text[end]!)) {
        let i = end - 1;
        while (i > pos && TOKEN_CHAR.test(text[i - 1]!)) i--;
        if (i > pos) cut = i - pos;
      }
    }
    const piece = text.slice(pos, pos + cut).trim();
    if (piece) pieces.push(piece);
    pos += cut;
    while (pos < text.length && /\s/.test(text[pos]!)) pos++;
  }
  const rest = text.slice(pos).trim();
  if (rest) pieces.push(rest);
  return pieces;
}
