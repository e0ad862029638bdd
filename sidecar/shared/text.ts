/**
 * Text that is safe to store and send: JSON, SQLite and Chroma's Rust server reject lone UTF-16
 * surrogates (a pasted half-emoji, an emoji cut by `slice`), and one such character used to fail a whole
 * session (Chroma 400, retried, dropped).
 */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Replaces every lone surrogate with U+FFFD; well-formed text is returned as it is. */
export function wellFormed(text: string): string {
  const s = text as string & { toWellFormed?: () => string };
  return typeof s.toWellFormed === 'function' ? s.toWellFormed() : text.replace(LONE_SURROGATE, '\uFFFD');
}

/**
 * At most `max` UTF-16 units of `text`, never ending in the middle of a surrogate pair (an emoji). The one
 * cut of Mnemo: wherever text is shortened, this does it, and the caller says so where content is lost.
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** The last `max` UTF-16 units of `text`, never starting in the middle of a surrogate pair. */
export function cutTextStart(text: string, max: number): string {
  if (text.length <= max) return text;
  const start = text.length - max;
  const code = text.charCodeAt(start);
  return text.slice(code >= 0xdc00 && code <= 0xdfff ? start + 1 : start);
}

/** Code points of `text` (what a person counts as characters; an emoji is one). */
export function charCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * Every invisible code point that can hide or reorder text (pipeline/lexicon/injection.ts names them by
 * kind): tag characters, bidi embedding/override/isolate controls, zero-width spaces and joiners, word
 * joiners and invisible operators, a byte-order mark, the combining grapheme joiner, variation selectors
 * 17–256.
 */
export const ANY_INVISIBLE =
  /[\u{E0000}-\u{E007F}\u202A-\u202E\u2066-\u2069\u200B-\u200D\u2060-\u2064\u180E\uFEFF\u034F\u{E0100}-\u{E01EF}]/gu;

/** An emoji (pictographic) code point: a zero-width joiner between two of them is part of the emoji. */
const PICTOGRAPHIC = /\p{Extended_Pictographic}|\p{Emoji_Modifier}|\uFE0F/u;

/** Whether the zero-width joiner at `at` stands between two emoji (how "👩‍💻" is written). */
export function joinsEmoji(text: string, at: number): boolean {
  if (at === 0) return false;
  const low = text.charCodeAt(at - 1);
  const prev = low >= 0xdc00 && low <= 0xdfff && at >= 2 ? text.slice(at - 2, at) : text.charAt(at - 1);
  const next = String.fromCodePoint(text.codePointAt(at + 1) ?? 0);
  return PICTOGRAPHIC.test(prev) && PICTOGRAPHIC.test(next);
}

/** A text with every invisible code point removed (an emoji's own joiners kept), and how many were. */
export function withoutInvisible(text: string): { text: string; removed: number } {
  let removed = 0;
  const out = text.replace(ANY_INVISIBLE, (ch: string, at: number) => {
    if (ch === '\u200D' && joinsEmoji(text, at)) return ch;
    if (ch === '\uFEFF' && at === 0) return '';
    removed++;
    return '';
  });
  return { text: out, removed };
}

/** Every way to break a line: a text shown on one line must have none. */
const LINE_BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/g;

/**
 * A text for one line of a list a reader (or an agent) takes line by line — `search`, `mnemo review`,
 * `mnemo://memories`: its line breaks shown as " ↵ " and invisible characters removed, so no text can
 * start a line of its own that passes for another record ("\n- mem_… [confirmed]").
 */
export function oneLine(text: string): string {
  return withoutInvisible(text).text.replace(LINE_BREAK, ' ↵ ');
}
