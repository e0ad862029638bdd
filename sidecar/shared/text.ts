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
